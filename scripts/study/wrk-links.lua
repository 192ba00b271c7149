-- wrk-links.lua: GET /link/<id> over existing link ids, for cross-checking
-- "kvtest shortener load" with wrk against the same running service.
--   wrk -t1 -c30 -d10s -s scripts/study/wrk-links.lua http://127.0.0.1:PORT -- KEYSFILE
-- KEYSFILE holds one id per line (kvtest shortener keys DBFILE > KEYSFILE).
-- Ids are picked uniformly at random; done() prints one JSON line with the
-- request count, errors and latency percentiles in microseconds.
local ids = {}

function init(args)
   local path = args[1] or "keys.txt"
   for line in io.lines(path) do
      if #line > 0 then ids[#ids + 1] = line end
   end
   if #ids == 0 then error("no ids in " .. path) end
   math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

function request()
   return wrk.format("GET", "/link/" .. ids[math.random(#ids)])
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      '{"tool":"wrk","requests":%d,"seconds":%.6f,"requests_per_s":%.1f,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"latency":{"min":%.1f,"mean":%.1f,"p50":%.1f,"p90":%.1f,"p99":%.1f,"p999":%.1f,"max":%.1f}}\n',
      summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
      e.connect, e.read, e.write, e.status, e.timeout,
      latency.min, latency.mean, latency:percentile(50), latency:percentile(90),
      latency:percentile(99), latency:percentile(99.9), latency.max))
end
