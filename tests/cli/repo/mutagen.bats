#!/usr/bin/env bats
# scripts/dev/mutagen.py (make mutants-auto): its rules make the mutants
# they say, and its runner's verdicts are right, on a toy tree of its own
# (one C file, one test, a Makefile): a boundary the test never probes
# survives, a wrong answer is killed, a loop is cut off, a mutant that does
# not compile is left out, a recorded verdict is not run again, and a
# survivor listed as equivalent leaves the score.
# In repo/, so make test-repo runs it: a developer's tool, not kvtest.
load ../../lib/common

setup() {
    T=$BATS_TEST_TMPDIR/toy
    mkdir -p "$T/scripts/dev" "$T/src" "$T/tests/unit" "$T/build"
    cp "$BATS_TEST_DIRNAME/../../../scripts/dev/mutagen.py" "$T/scripts/dev/"
    printf '# no hand-written faults\n' >"$T/scripts/dev/mutants.txt"
    : >"$T/build/sqlite3.o"   # the runner's check that the tree was built once
    cat >"$T/src/toy.c" <<'EOF'
/* toy: "a < b" in a comment is left alone */
#include <string.h>
#define TOY_STEP 7
struct toy_flags { unsigned on : 1; };
int toy_max(int a, int b)
{
    if (a > b)
        return a;
    return b;
}
int toy_count(int n)
{
    int k = 0;
    while (n > 0) {
        n = n - 1;
        k++;
    }
    return k;
}
int toy_len(void)
{
    char buf[16] = "";
    strcpy(buf, "x <= y && z");
    return (int)strlen(buf) + TOY_STEP;
}
int toy_twice(int a)
{
    if (a > 2)
        return 1;
    {
        if (a > 2)
            return 2;
    }
    return 0;
}
void toy_set(int *p)
{
    *p = 3;   /* a line that starts with '*' is code; this comment's
                 second line is not: 1 < 2 */
}
EOF
    cat >"$T/tests/unit/test_toy.c" <<'EOF'
int toy_max(int a, int b);
int toy_count(int n);
int toy_len(void);
int main(void)
{
    return !(toy_max(1, 2) == 2 && toy_max(3, 2) == 3 && toy_count(3) == 3 && toy_len() == 18);
}
EOF
    printf '%s\n' 'build/asan/%.o: %.c' '	@mkdir -p $(@D)' '	cc -Wall -Werror -c $< -o $@' \
        'build/asan/tests/%: tests/unit/%.c build/asan/src/toy.o' '	@mkdir -p $(@D)' \
        '	cc -o $@ $^' >"$T/Makefile"
    (cd "$T" && git init -q && git add -A)
}

# verdict FAULTY: the recorded verdict of the mutant whose line became FAULTY
verdict() {
    awk -F'\t' -v f="$1" '$8 == f { print $4 }' "$T/results/mutants-auto/src_toy.c.tsv"
}

@test "mutagen: list makes each rule's mutants, and none in comments, strings or a buffer's size" {
    cd "$T"
    run python3 scripts/dev/mutagen.py list src/toy.c
    [ "$status" -eq 0 ]
    # a comparison loosened and negated; && and || are not in code here
    [[ $output == *$'src/toy.c:7\tcmp\tif (a >= b)'* ]]
    [[ $output == *$'src/toy.c:7\tcmp\tif (a <= b)'* ]]
    # "- 1" dropped and doubled, the literal nudged, a #define's value nudged
    [[ $output == *$'src/toy.c:15\tone\tn = n;'* ]]
    [[ $output == *$'src/toy.c:15\tone\tn = n - 2;'* ]]
    [[ $output == *$'src/toy.c:15\tconst\tn = n - 0;'* ]]
    [[ $output == *$'src/toy.c:3\tconst\t#define TOY_STEP 8'* ]]
    # a lone call deleted
    [[ $output == *$'src/toy.c:23\tcall\t(void)0;'* ]]
    # a statement that starts with '*' is mutated, the second line of a
    # comment that began after code is not
    set=$(grep -n '^    \*p = 3;' src/toy.c | cut -d: -f1)
    [[ $output == *"src/toy.c:$set"$'\tconst\t*p = 4;'* ]]
    [ "$(grep -c "^src/toy.c:$((set + 1))	" <<<"$output")" -eq 0 ]
    # nothing from the comment (line 1), the #include (2), the string (23)
    # or the buffer's size (22)
    run python3 scripts/dev/mutagen.py list src/toy.c
    [ "$(grep -c '^src/toy.c:\(1\|2\|22\)	' <<<"$output")" -eq 0 ]
    [ "$(grep -c '^src/toy.c:23	' <<<"$output")" -eq 1 ]
}

@test "mutagen: list refuses a file that is not C in the tree, exit 2, one line" {
    cd "$T"
    run python3 scripts/dev/mutagen.py list src/nothere.c
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ $output == *"src/nothere.c: no such C file"* ]]
    run python3 scripts/dev/mutagen.py run --jobs x src/toy.c
    [ "$status" -eq 2 ]
}

@test "mutagen: run kills a wrong answer, cuts off a loop, leaves out what does not compile" {
    cd "$T"
    mkdir "$BATS_TEST_TMPDIR/tmp"
    TMPDIR=$BATS_TEST_TMPDIR/tmp MUTAGEN_GRACE=2 run python3 scripts/dev/mutagen.py run src/toy.c
    [ "$status" -eq 0 ]
    [ "$(verdict 'if (a <= b)')" = killed ]      # toy_max(1, 2) is 1
    [ "$(verdict 'while (n >= 0) {')" = killed ] # toy_count(3) is 4
    [ "$(verdict 'n = n;')" = timeout ]          # never ends
    [ "$(verdict 'n = n - 2;')" = killed ]
    [ "$(verdict '#define TOY_STEP 8')" = killed ]
    [ "$(verdict '(void)0;')" = killed ]         # buf left empty: strlen is 0, not 11
    [ "$(verdict 'struct toy_flags { unsigned on : 0; };')" = nocompile ]
    # a > b -> a >= b gives the same maximum: no test can kill it
    [ "$(verdict 'if (a >= b)')" = survived ]
    # every mutant has its verdict, those of two lines of the same text too
    run python3 scripts/dev/mutagen.py list src/toy.c
    [ "$(tail -n +2 results/mutants-auto/src_toy.c.tsv | cut -f1 | sort -u | wc -l)" -eq "${#lines[@]}" ]
    [ "$(grep $'\tif (a >= 2)$' results/mutants-auto/src_toy.c.tsv | cut -f1 | sort -u | wc -l)" -eq 2 ]
    # the scratch copy is gone and the tree's file is as it was
    run git diff --quiet -- src/toy.c
    [ "$status" -eq 0 ]
    [ -z "$(find "$BATS_TEST_TMPDIR/tmp" -maxdepth 1 -name 'kvtest-mutagen.*')" ]
}

@test "mutagen: a recorded verdict is not run again; an equivalent leaves the score and the retests" {
    cd "$T"
    MUTAGEN_GRACE=2 run python3 scripts/dev/mutagen.py run src/toy.c
    [ "$status" -eq 0 ]
    run python3 scripts/dev/mutagen.py run src/toy.c
    [ "$status" -eq 0 ]
    [[ $output != *"mutants to run"* ]]
    run python3 scripts/dev/mutagen.py survivors src/toy.c
    [[ $output == *$'if (a > b)\tif (a >= b)'* ]]
    run python3 scripts/dev/mutagen.py score src/toy.c
    line=$(grep '^src/toy.c' <<<"$output")
    # surviving = every survivor; the score is killed / (killed + surviving)
    surv=$(awk -F'\t' '$4 == "survived"' results/mutants-auto/src_toy.c.tsv | wc -l)
    kill=$(awk -F'\t' '$4 == "killed" || $4 == "timeout"' results/mutants-auto/src_toy.c.tsv | wc -l)
    [ "$(cut -f4 <<<"$line")" -eq "$kill" ]
    [ "$(cut -f6 <<<"$line")" -eq "$surv" ]
    mkdir -p results/mutants-auto/equivalent
    python3 scripts/dev/mutagen.py survivors src/toy.c |
        awk -F'\t' '{ printf "src/toy.c | %s | %s | tested as equivalent\n", $3, $4 }' \
        >results/mutants-auto/equivalent/src_toy.c.txt
    run python3 scripts/dev/mutagen.py score src/toy.c
    line=$(grep '^src/toy.c' <<<"$output")
    [ "$(cut -f5 <<<"$line")" -eq "$surv" ]
    [ "$(cut -f6 <<<"$line")" -eq 0 ]
    [ "$(cut -f7 <<<"$line")" = "100.0%" ]
    run python3 scripts/dev/mutagen.py survivors src/toy.c
    [ -z "$output" ]
    # --retest runs survivors again, but none an equivalent line explains
    run python3 scripts/dev/mutagen.py run --retest src/toy.c
    [ "$status" -eq 0 ]
    [[ $output != *"mutants to run"* ]]
    rm results/mutants-auto/equivalent/src_toy.c.txt
    MUTAGEN_GRACE=2 run python3 scripts/dev/mutagen.py run --retest src/toy.c
    [ "$status" -eq 0 ]
    [[ $output == *"$surv mutants to run"* ]]
}
