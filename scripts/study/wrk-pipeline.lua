-- wrk-pipeline.lua: HTTP/1.1 pipelining with wrk, as wrk's own
-- scripts/pipeline.lua does: each request() returns DEPTH requests in one
-- buffer, so DEPTH are in flight per connection; wrk counts every answer.
--   wrk -t2 -c10 -d5s -s scripts/study/wrk-pipeline.lua http://127.0.0.1:PORT -- DEPTH [PATH]
-- PATH defaults to /heart-beat. done() prints one JSON line like
-- wrk-links.lua's, for scripts/study/pipeline.sh.
local req

function init(args)
   local depth = tonumber(args[1]) or 1
   local path = args[2] or "/heart-beat"
   local r = {}
   for i = 1, depth do
      r[i] = wrk.format("GET", path)
   end
   req = table.concat(r)
end

function request()
   return req
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      '{"tool":"wrk","requests":%d,"seconds":%.6f,"requests_per_s":%.1f,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
      summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
      e.connect, e.read, e.write, e.status, e.timeout))
end
