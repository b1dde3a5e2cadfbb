#!/usr/bin/env bash
# After a failed `swift test`, prints what a reader of the run's last lines needs: the tests that
# started and never ended (the one a crash ended is among them) and every failure line, from the
# run's log (its first argument). A crash's backtrace is already short and last (SWIFT_BACKTRACE in
# scripts/run-tests.sh and .ci/run: the crashed thread only, no registers or images).
set -uo pipefail
log=$1
echo "---- $log: tests started and not ended ----"
awk '
    /^◇ Test .* started\.$/ && !/^◇ Test case passing / {
        name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); open[name] = NR
    }
    /^(✔|✘) Test / {
        name = $0; sub(/^(✔|✘) Test /, "", name)
        for (n in open) if (index(name, n " ") == 1) delete open[n]
    }
    END { for (n in open) print "  " n }
' "$log" | sort
echo "---- $log: failures ----"
grep -E '^✘ ' "$log" | head -40
echo "----"
