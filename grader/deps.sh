#!/usr/bin/env bash
# Make sure the Debian packages labgrader needs are present.
#   grader/deps.sh build    what building and grading need (missing: install, or fail)
#   grader/deps.sh test     the above plus what the test suite needs
#   grader/deps.sh analyze  build's, plus libclang for `grader similarity` and `grader mutate`
#   grader/deps.sh fuzz     build's, plus clang and libFuzzer (make fuzz)
# Checks what the compiler and PATH can actually see (so a machine that has the
# libraries without dpkg knowing, e.g. unpacked elsewhere, passes), installs the
# missing packages with apt-get when it can (root, or sudo without a password), and
# otherwise prints the one command to run. PDF tools are optional for 'build'.
set -u
mode=${1:-build}
cc=${CC:-cc}
missing=()        # packages needed now
optional=()       # packages that only enable PDFs, plots or isolation

has_header() { printf '#include <%s>\n' "$1" | $cc -E -x c - >/dev/null 2>&1; }
has_cmd() { command -v "$1" >/dev/null 2>&1; }

has_cmd "$cc" || missing+=(build-essential)
has_cmd pkg-config || missing+=(pkg-config)
has_header yaml.h || missing+=(libyaml-dev)
# OpenBLAS itself, not any cblas.h: libblas-dev (the reference BLAS) ships a cblas.h too, and
# then only linking with -lopenblas fails. A link test answers both questions at once.
has_openblas() {
    printf '#include <cblas.h>\nint main(void) { return cblas_sdot(0, 0, 1, 0, 1) != 0; }\n' |
        $cc -x c - -o /dev/null $(pkg-config --cflags --libs openblas 2>/dev/null ||
            echo -I/usr/include/x86_64-linux-gnu/openblas-pthread -lopenblas) >/dev/null 2>&1
}
has_openblas || missing+=(libopenblas-dev)
has_header archive.h || missing+=(libarchive-dev)
has_cmd bwrap || optional+=(bubblewrap)
has_cmd pandoc || optional+=(pandoc)
has_cmd xelatex || optional+=(texlive-xetex texlive-latex-recommended texlive-fonts-recommended lmodern)
# hyperref under xelatex needs the recommended fonts (pzdr.tfm), a separate package.
if has_cmd xelatex && has_cmd kpsewhich && ! kpsewhich pzdr.tfm >/dev/null 2>&1; then
    optional+=(texlive-fonts-recommended)
fi
{ has_cmd fc-list && fc-list 2>/dev/null | grep -qi 'DejaVu Sans'; } || optional+=(fonts-dejavu-core)
has_cmd gnuplot || optional+=(gnuplot-nox)
# make fuzz: clang with libFuzzer's runtime, which Debian ships apart (libclang-rt-dev). A link
# test answers whether both are there.
has_libfuzzer() {
    printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d && n ? 0 : 0; }\n' |
        clang -x c - -fsanitize=fuzzer,address -o /dev/null >/dev/null 2>&1
}
if [ "$mode" = fuzz ]; then
    has_cmd clang || missing+=(clang)
    has_libfuzzer || missing+=(libclang-rt-dev)
fi
# libclang: clang's own C/C++/CUDA lexer for the similarity check and mutation testing
# (docs/similarity.md says why). Loaded at run time: the library itself is what counts
# (libclang1-N, which libclang-dev pulls in).
has_libclang() {
    compgen -G '/usr/lib/*/libclang-*.so.1' >/dev/null || compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null ||
        { has_cmd ldconfig && ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so'; }
}
if [ "$mode" = analyze ] || [ "$mode" = test ]; then
    has_libclang || missing+=(libclang-dev)
fi
if [ "$mode" = test ]; then
    has_header check.h || missing+=(check)
    has_cmd pdftotext || missing+=(poppler-utils)
    # JUnit exports are validated against junit-10.xsd (tests/fixtures/junit/).
    has_cmd xmllint || missing+=(libxml2-utils)
    has_cmd clang-format || optional+=(clang-format)
    # The HTML pages in a real browser (tests/browser, docs/html.md): Debian's Chromium, its
    # driver and Selenium for Debian's python3; Java for the Nu Html Checker (npm, below).
    has_cmd chromium || missing+=(chromium)
    has_cmd chromedriver || missing+=(chromium-driver)
    /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 || missing+=(python3-selenium)
    has_cmd java || missing+=(default-jre-headless)
    has_cmd npm || missing+=(npm)
    # The tests exercise the PDF and isolation paths for real.
    missing+=("${optional[@]}")
    optional=()
fi

# The Slurm test runs a real one-node cluster when these can be installed; it is skipped,
# with the reason, when they cannot, so they are tried separately and never required.
if [ "$mode" = test ] && [ "${LG_NO_INSTALL:-}" = "" ] && has_cmd apt-get && [ "$(id -u)" = 0 ] &&
   ! { has_cmd slurmctld && has_cmd munged; }; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge \
        >/dev/null 2>&1 || echo "labgrader: slurm-wlm/munge not installed: the Slurm test will be skipped" >&2
fi

# The Nu Html Checker (the W3C's validator; Debian packages none): npm's vnu-jar, its jar run by
# Debian's Java. --ignore-scripts: its install script would download a Java of its own.
vnu_jar() { has_cmd npm && [ -f "$(npm root -g 2>/dev/null)/vnu-jar/build/dist/vnu.jar" ]; }
if [ "$mode" = test ] && [ "${LG_NO_INSTALL:-}" = "" ] && has_cmd npm && ! vnu_jar &&
   { [ "$(id -u)" = 0 ] || [ -w "$(npm root -g 2>/dev/null)" ]; }; then
    npm install --global --ignore-scripts --no-audit --no-fund --loglevel=error vnu-jar@26.9.27 \
        >/dev/null 2>&1 || echo "labgrader: npm's vnu-jar not installed: the HTML pages will not be validated" >&2
fi

all=("${missing[@]}" "${optional[@]}")
[ ${#all[@]} -eq 0 ] && exit 0

if [ "${LG_NO_INSTALL:-}" = "" ] && has_cmd apt-get; then
    if [ "$(id -u)" = 0 ]; then sudo=""; elif has_cmd sudo && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
    if [ "$sudo" != none ]; then
        echo "labgrader: installing ${all[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        if { [ -n "$(find /var/lib/apt/lists -name '*Packages*' -print -quit 2>/dev/null)" ] || $sudo apt-get update -qq; } &&
           $sudo apt-get install -y -qq --no-install-recommends "${all[@]}" >/dev/null; then
            exit 0
        fi
        echo "labgrader: installing failed" >&2
    fi
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "labgrader: missing Debian packages: ${missing[*]}" >&2
    echo "labgrader: run:  sudo apt-get install ${all[*]}" >&2
    exit 1
fi
echo "labgrader: optional packages missing (no PDF reports, plots or sandbox without them): ${optional[*]}" >&2
echo "labgrader: to add them:  sudo apt-get install ${optional[*]}" >&2
exit 0
