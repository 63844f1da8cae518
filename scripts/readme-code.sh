#!/bin/sh
# scripts/readme-code.sh check|update [README.md] -- README.md's C examples are files
# (samples/readme_*.c) that `make test` compiles and runs; each appears in the README as
#
#   <!-- include samples/readme_x.c -->
#   ```c
#   ...the file, or only its lines between "/* [README] */" and "/* [/README] */"
#      (as indented as those marker lines are, that indentation removed)...
#   ```
#
# check: exit 1 (showing the difference) where a block differs from its file;
# update: rewrite those blocks from the files.
set -e
mode=${1:-check}
readme=${2:-README.md}
new=$(mktemp)
trap 'rm -f "$new"' EXIT
awk '
function emit(f,    line, n, marked, keep, ind) {
    marked = 0
    while ((getline line < f) > 0) if (line ~ /^[ \t]*\/\* \[README\] \*\/$/) marked = 1
    close(f)
    keep = !marked
    n = 0
    ind = ""
    while ((getline line < f) > 0) {
        if (line ~ /^[ \t]*\/\* \[\/README\] \*\/$/) { keep = 0; continue }
        if (line ~ /^[ \t]*\/\* \[README\] \*\/$/) { keep = 1; ind = line; sub(/\/.*/, "", ind); continue }
        if (!keep) continue
        if (ind != "" && substr(line, 1, length(ind)) == ind) line = substr(line, length(ind) + 1)
        print line
        n++
    }
    close(f)
    if (n == 0) { print "readme-code: " f ": missing or empty" > "/dev/stderr"; bad = 1 }
}
skip && /^```$/ { skip = 0; next }
skip { next }
/^<!-- include [^ ]* -->$/ {
    print
    f = $3
    if ((getline line) <= 0 || line != "```c") {
        print "readme-code: " f ": the include line must be followed by a ```c block" > "/dev/stderr"; bad = 1
    }
    print "```c"
    emit(f)
    print "```"
    skip = 1
    next
}
{ print }
END { exit bad }
' "$readme" > "$new"
if [ "$mode" = update ]; then
    cmp -s "$new" "$readme" || cp "$new" "$readme"
elif ! cmp -s "$new" "$readme"; then
    echo "readme-code: $readme's examples differ from their files (scripts/readme-code.sh update rewrites them):" >&2
    diff "$readme" "$new" >&2 || true
    exit 1
fi
