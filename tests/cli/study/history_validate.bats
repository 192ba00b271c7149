#!/usr/bin/env bats
# scripts/study/history/validate.py, the validation of kvtest history on
# synthetic series: its scoring where the answer is known, its series (the
# steps where it says they are), and a small run end to end.
# In study/, so make test-repo runs it: the study's own script, not kvtest.

load '../../lib/common'

setup() {
    common_setup
    V="$BATS_TEST_DIRNAME/../../../scripts/study/history/validate.py"
}

py() {
    python3 -c "import sys; sys.path.insert(0, '$(dirname "$V")'); import validate as V; $1"
}

@test "validate.py: a step is matched within 2 commits, once, and a drift anywhere in its window" {
    run py 'print(V.score([20], None, [21]))'
    assert_output '(1, 1, 1, 1, [1])'
    run py 'print(V.score([20], None, [23]))'
    assert_output '(1, 0, 0, 1, [])'
    # two change points near one step: one matches, the other is a false one
    run py 'print(V.score([20], None, [19, 21]))'
    assert_output '(1, 1, 1, 2, [1])'
    run py 'print(V.score([10, 30], None, [30, 10, 45]))'
    assert_output '(2, 2, 2, 3, [0, 0])'
    run py 'print(V.score([15], (15, 25), [14, 26, 40]))'
    assert_output '(1, 1, 2, 3, [])'
    run py 'print(V.score([15], (15, 25), [28]))'
    assert_output '(1, 0, 0, 1, [])'
}

@test "validate.py: the series step by the factor where their truth says, and nowhere else" {
    run py '
import random
r = random.Random(1)
pool = [1.0]
v, t, w = V.make_series(r, pool, "single", 1.2)
assert len(v) == 50 and len(t) == 1 and 10 <= t[0] <= 40 and w is None
assert all(x == 1.0 for x in v[:t[0]]) and all(abs(x - 1.2) < 1e-12 for x in v[t[0]:])
for _ in range(50):
    v, t, w = V.make_series(r, pool, "several", 1.1)
    assert len(t) == 3 and t[1] - t[0] >= 10 and t[2] - t[1] >= 10
    levels = sorted({round(x, 9) for x in v})
    ch = [i for i in range(1, 50) if abs(v[i] - v[i - 1]) > 1e-12]
    assert ch == t, (ch, t)
v, t, w = V.make_series(r, pool, "drift", 1.2)
assert w == (t[0], t[0] + 10) and v[t[0]] == 1.0 and abs(v[t[0] + 10] - 1.2) < 1e-12
assert abs(v[t[0] + 5] - 1.1) < 1e-12 and all(abs(x - 1.2) < 1e-12 for x in v[t[0] + 10:])
v, t, w = V.make_series(r, pool, "aa", 1)
assert v == [1.0] * 50 and t == [] and w is None
print("ok")'
    assert_success
    assert_output ok
}

@test "validate.py: a small run end to end: every row, and a x1.2 step of instruction counts always found" {
    run python3 "$V" --kvtest "$KVTEST_REL" --out "$BATS_TEST_TMPDIR/v" --aa 3 --per-step 4
    assert_success
    assert_line --regexp '^\| instr \| mw \| single \| .*\| recall 1\.00, precision [0-9.]+, ±0\.0 \|$'
    run awk -F'\t' 'NR > 1' "$BATS_TEST_TMPDIR/v/validation.tsv"
    assert_equal "${#lines[@]}" 108
    run awk -F'\t' 'NR > 1 && $1 == "instr" && $3 == "single" && $4 == 1.2 && $10 != 1' "$BATS_TEST_TMPDIR/v/validation.tsv"
    assert_output ''
    run awk -F'\t' 'NR > 1 && $4 == 3' "$BATS_TEST_TMPDIR/v/aa.tsv"
    assert_equal "${#lines[@]}" 63
    run python3 "$V" --aa 0
    assert_failure 2
    assert_output 'validate.py: --aa and --long must be at least 1 and --per-step at least 2'
}
