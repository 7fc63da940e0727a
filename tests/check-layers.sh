#!/usr/bin/env bash
# The stages of grader/ in pipeline order (docs/architecture.md): a file may include its own
# stage and earlier ones, never a later one, and no two headers may include each other,
# directly or through others. Prints every offence and exits 1 when there is one.
set -u
cd "$(dirname "$0")/.."
order="base harness spec run grade report class analyze cli"
rank() { local i=0; for s in $order; do [ "$s" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in grader/*/*.c grader/*/*.h grader/*/*.cu; do
    [ -e "$f" ] || continue
    stage=${f#grader/}; stage=${stage%%/*}
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\/[^"]*\)".*/\1/p' "$f"); do
        istage=${inc%%/*}
        if [ "$(rank "$istage")" -gt "$(rank "$stage")" ]; then
            echo "upward include: $f includes $inc ($stage may not depend on $istage)"
            bad=1
        fi
        # Cycles are among headers: a .c file including a header that includes its own is a
        # layer reaching down, not a cycle.
        case $f in *.h) [ "$inc" != "${f#grader/}" ] && echo "${f#grader/} $inc" >>"$edges" ;; esac
    done
done
# tsort reports a cycle among the modules on stderr.
if ! cycles=$(sort -u "$edges" | tsort 2>&1 >/dev/null) || [ -n "$cycles" ]; then
    echo "include cycle:"; printf '%s\n' "$cycles" | sed 's/^/  /'
    bad=1
fi
[ $bad = 0 ] && echo "layers: no upward include, no cycle"
exit $bad
