#!/usr/bin/env bash
# The HTML pages in a real browser (docs/html.md, tests/browser/README.md): grade a small
# fixture class (CPU lab, a hostile student among them), add a similarity and a mutation
# result, render a class of 300 and the Spanish pages, render the pages' fixture (every kind of
# case, tests/fixtures/pages), then open them all in headless Chromium (test_pages.py: each
# page states what its Markdown states) and validate them with the Nu Html Checker.
#
#   tests/browser/run.sh            (make test-browser; make test runs it)
#
# Output (pages, screenshots, timings) under $LG_BROWSER_OUT (default build/tests/browser).
# Without Chromium, its driver or Selenium the suite says what is missing and is skipped;
# without the checker, the validation is. It never passes silently: the last line says what ran.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
bin=${LG_BIN:-$root/build/grader}
out=${LG_BROWSER_OUT:-$root/build/tests/browser}
python=/usr/bin/python3
t0=$SECONDS

skip() {
    echo "browser: SKIPPED: $*"
    echo "browser: 0 passed, 0 failed, 1 skipped"
    exit 0
}

missing=()
command -v chromium >/dev/null || missing+=("chromium (Debian package chromium)")
command -v chromedriver >/dev/null || missing+=("chromedriver (chromium-driver)")
{ [ -x "$python" ] && "$python" -c 'import selenium' 2>/dev/null; } || missing+=("Selenium for /usr/bin/python3 (python3-selenium)")
[ ${#missing[@]} -eq 0 ] || skip "missing ${missing[*]}; grader/deps.sh test installs them"
[ -x "$bin" ] || { echo "browser: no grader at $bin (make first)"; exit 1; }

rm -rf "$out"
mkdir -p "$out/submissions" "$out/screenshots"
# The class: six of tests/fixtures/class (every kind of result but the hang) and the hostile one.
for s in s01 s04 s06 s08 s10 s11; do
    cp -r "tests/fixtures/class/$s" "$out/submissions/"
done
cp -r tests/browser/hostile/s90 "$out/submissions/"
lab=tests/fixtures/labcpu
echo "browser: grading the fixture class ($(ls "$out/submissions" | wc -l) students)"
"$bin" grade "$lab" --submissions "$out/submissions" --roster tests/browser/roster.csv \
    --out "$out/class" --no-pdf --timeout 10 > "$out/grade.log" 2>&1
rc=$?
# Failing students make grade exit 1; anything else is the grader's failure.
[ $rc -le 1 ] || { cat "$out/grade.log"; echo "browser: grading failed (exit $rc)"; exit 1; }
labout=$out/class/lab99
cp tests/browser/similarity.json "$labout/"
mkdir -p "$labout/mutate" && cp tests/browser/mutate/mutants.json "$labout/mutate/"
# The analyses are read when the class page is rendered: render it again from the results.
"$bin" report "$lab" --out "$out/class" --no-pdf > "$out/report.log" 2>&1 || { cat "$out/report.log"; exit 1; }
# The same class in Spanish.
cp -r "$out/class" "$out/class-es"
"$bin" report "$lab" --out "$out/class-es" --no-pdf --lang es > "$out/report-es.log" 2>&1 || { cat "$out/report-es.log"; exit 1; }
# A class of 300: the graded results again under 300 ids, rendered as a class.
mkdir -p "$out/big/lab99"
"$python" - "$labout" "$out/big/lab99" <<'EOF'
import glob, json, os, sys
src = sorted(glob.glob(os.path.join(sys.argv[1], "s*", "results.json")))
for i in range(300):
    r = json.load(open(src[i % len(src)]))
    sid = "c%03d" % (i + 1)
    r["student_id"], r["student_name"] = sid, "Student %d" % (i + 1)
    os.makedirs(os.path.join(sys.argv[2], sid))
    with open(os.path.join(sys.argv[2], sid, "results.json"), "w") as f:
        json.dump(r, f)
open(os.path.join(sys.argv[2], "gradebook.csv"), "w").close()
EOF
"$bin" report "$lab" --out "$out/big" --no-pdf > "$out/report-big.log" 2>&1 || { cat "$out/report-big.log"; exit 1; }
# The pages' fixture (tests/fixtures/pages/README.md): every kind of case a page must state as
# its Markdown does (XX, not timed, slow, hidden, CE, WA with NaN, a GPU variant not run), from
# results frozen so that every machine renders the same pages: a graded class in Spanish (the
# lab's language) and in English, and a student's own check.
pagelab=tests/fixtures/pages
mkdir -p "$out/pages/lab97" "$out/pages-check/lab97"
cp -r "$pagelab"/results/class/* "$out/pages/lab97/"
: > "$out/pages/lab97/gradebook.csv" # a graded class: report renders its summary too
cp tests/browser/pages-similarity.json "$out/pages/lab97/similarity.json"
cp -r "$pagelab/results/check/s07" "$out/pages-check/lab97/"
cp -r "$out/pages" "$out/pages-en"
for run in "pages:" "pages-en:--lang en" "pages-check:"; do
    dir=${run%%:*} args=${run#*:}
    # shellcheck disable=SC2086 # args is one option and its value, or nothing
    "$bin" report "$pagelab" --out "$out/$dir" --no-pdf $args > "$out/report-$dir.log" 2>&1 ||
        { cat "$out/report-$dir.log"; exit 1; }
done
echo "browser: pages ready ($((SECONDS - t0)) s): index.html $(stat -c %s "$labout/index.html") bytes," \
     "a student's report.html $(stat -c %s "$labout/s10/report.html") bytes," \
     "300 students' index.html $(stat -c %s "$out/big/lab99/index.html") bytes"

status=0
LG_BROWSER_OUT=$out "$python" tests/browser/test_pages.py || status=1

# The Nu Html Checker (npm's vnu-jar, run by Debian's Java): errors only (its info notes say
# it cannot check the pages' hashed CSP sources, which Chromium applies).
jar=""
if command -v npm >/dev/null; then jar=$(npm root -g 2>/dev/null)/vnu-jar/build/dist/vnu.jar; fi
if [ -n "$jar" ] && [ -f "$jar" ] && command -v java >/dev/null; then
    pages=("$labout/index.html" "$labout"/s*/report.html "$out/class-es/lab99/index.html"
           "$out/class-es/lab99/s10/report.html" "$out/big/lab99/index.html"
           "$out/pages/lab97/index.html" "$out/pages/lab97"/s*/report.html
           "$out/pages-en/lab97/index.html" "$out/pages-check/lab97/s07/report.html")
    if java -jar "$jar" --errors-only "${pages[@]}" > "$out/vnu.log" 2>&1; then
        echo "browser: validation: ${#pages[@]} pages valid (Nu Html Checker)"
    else
        cat "$out/vnu.log"
        echo "browser: validation: FAILED (Nu Html Checker, $out/vnu.log)"
        status=1
    fi
else
    echo "browser: validation SKIPPED: no Nu Html Checker (npm's vnu-jar) or java; grader/deps.sh test installs them"
fi
echo "browser: done in $((SECONDS - t0)) s; screenshots in $out/screenshots"
exit $status
