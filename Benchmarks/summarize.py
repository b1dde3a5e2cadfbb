#!/usr/bin/env python3
"""Reads package-benchmark's text output (stdin) and prints the README's results table: p50
throughput, p50/p99 wall clock per transition, mallocs per transition, batch, and each ratio to
its baseline from the same run."""
import re
import sys

UNITS = {"(#)": 1, "(K)": 1e3, "(M)": 1e6, "(G)": 1e9}
TIME = {"(ns)": 1e-9, "(μs)": 1e-6, "(us)": 1e-6, "(ms)": 1e-3, "(s)": 1}


def parse(text):
    results, name = {}, None
    for line in text.splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip()
        if re.match(r"^[0-9]+ .+", line):
            name = line.strip()
            results[name] = {}
            continue
        if name is None or not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.strip("│").split("│")]
        if len(cells) < 9 or not cells[1].lstrip("-").isdigit():
            continue
        label, p50, p99 = cells[0], float(cells[3]), float(cells[6])
        if label.startswith("Throughput"):
            scale = next((v for k, v in UNITS.items() if k in label), 1)
            if p50 >= 100:  # else the display unit rounds it: derive it from the wall clock below
                results[name]["throughput"] = p50 * scale
        elif label.startswith("Time (wall clock)"):
            scale = next((v for k, v in TIME.items() if k in label), 1)
            results[name]["p50"], results[name]["p99"] = p50 * scale, p99 * scale
        elif label.startswith("Malloc (total)"):
            results[name]["mallocs"] = p50
        elif label.startswith("appends per commit"):
            results[name]["batch"] = p50
        elif "ns/transition" in label:
            scale = next((v for k, v in UNITS.items() if k in label), 1)
            side = label.split(" ns/transition")[0]
            results[name][side] = (p50 * scale * 1e-9, p99 * scale * 1e-9)
        else:  # the fleet's custom metrics (item 8): kept by label, without a display unit
            label = re.sub(r"\s*\*$", "", label).strip()
            scale = next((v for k, v in UNITS.items() if label.endswith(k)), 1)
            key = next((label[: -len(k)].rstrip() for k in UNITS if label.endswith(k)), label)
            results[name].setdefault("metrics", {})[key] = (p50 * scale, p99 * scale, int(cells[-1]) if cells[-1].isdigit() else 0)
    for values in results.values():
        if "throughput" not in values and values.get("p50"):
            values["throughput"] = 1 / values["p50"]  # below the table's display unit
    return results


# Each row's durability, as BaselineConfiguration.label in the suite names it (keep them equal);
# the suite checks at set-up that every baseline reads back as its label says.
LABELS = {
    "memory": "in memory",
    "rewindDurable": "durable: synced per commit",
    "rewindLastCommitMayRollBack": "data synced per commit: power loss may undo the last commit",
    "rewindNoSync": "no sync: OS crash may lose last commits",
    "rawLMDBSynced": "synced: data + meta per commit",
    "rawLMDBNoMetaSync": "MDB_NOMETASYNC: data synced per commit, power loss may undo the last",
    "rawLMDBNoSync": "MDB_NOSYNC: OS crash may lose last commits",
    "grdbFull": "WAL FULL: synced per commit",
    "grdbNormal": "WAL NORMAL: app crash safe, power loss may lose last commits",
    "grdbOff": "WAL OFF: app crash safe, OS crash may lose commits or corrupt",
}


def durability(name):
    """The durability label of a row, from the name the suite gives it."""
    if name is None:
        return "–"
    if name.startswith("1 "):
        return LABELS["memory"]
    if name.startswith("6 "):
        return "– (reads)"
    if "GRDB OFF" in name:
        return LABELS["grdbOff"]
    if "GRDB NORMAL" in name:
        return LABELS["grdbNormal"]
    if "GRDB FULL" in name:
        return LABELS["grdbFull"]
    if "raw LMDB NOMETASYNC" in name:
        return LABELS["rawLMDBNoMetaSync"]
    if "raw LMDB NOSYNC" in name:
        return LABELS["rawLMDBNoSync"]
    if "raw LMDB" in name:
        return LABELS["rawLMDBSynced"]
    if "no-sync" in name or "noSync" in name:
        return LABELS["rewindNoSync"]
    if "lastCommitMayRollBack" in name:
        return LABELS["rewindLastCommitMayRollBack"]
    return LABELS["rewindDurable"]


def rate(value):
    if value >= 1e6:
        return f"{value / 1e6:.2f} M/s"
    if value >= 1e3:
        return f"{value / 1e3:.1f} K/s"
    return f"{value:.0f} /s"


def duration(value):
    if value is None:
        return "–"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    if value >= 1e-6:
        return f"{value * 1e6:.1f} µs"
    return f"{value * 1e9:.0f} ns"


def main():
    text = sys.stdin.read()
    results = parse(text)
    if "--fleet" not in sys.argv:
        separate(results)
        interleaved(results)
        durable_breakdown(results)
        levels(results)
        archive(results)
    fleet(results, text)


def separate(results):
    pairs = [
        ("1 in-memory flat: Rewind", "1 in-memory flat: dictionary baseline", "≥ 1.0×, 0 mallocs"),
        ("1 in-memory hierarchical: Rewind", "1 in-memory flat: dictionary baseline", "≥ 2 M/s"),
        ("1 in-memory parallel: Rewind", "1 in-memory flat: dictionary baseline", ""),
        ("1 in-memory flat: Rewind prepared", "1 in-memory flat: dictionary baseline", "≥ 1.0×, 0 mallocs"),
        ("1 in-memory hierarchical: Rewind prepared", "1 in-memory flat: dictionary baseline", "≥ 2 M/s"),
        ("1 in-memory parallel: Rewind prepared", "1 in-memory flat: dictionary baseline", ""),
        ("2 durable one per commit: Rewind", "2 durable one per commit: raw LMDB", "≥ 0.9×"),
    ]
    for sessions in (1, 8, 64, 256):
        pairs.append((f"3 group commit {sessions} sessions: Rewind",
                      f"3 group commit {sessions} sessions: raw LMDB same batch",
                      "≥ 0.8×" if sessions == 64 else ""))
    pairs.append(("3 group commit 64 sessions: Rewind", "2 durable one per commit: Rewind", "≥ 25×"))
    # The async ceiling: raw LMDB commits fed by 64 suspending tasks, no engine work.
    for raw in ("3 group commit 64 sessions: raw LMDB", "4 no-sync 64 sessions: raw LMDB NOSYNC"):
        pairs.append((f"{raw} fed by 64 tasks", f"{raw} at the fed tasks' batch", "(ceiling ÷ raw)"))
    pairs.append(("3 group commit 64 sessions: Rewind",
                  "3 group commit 64 sessions: raw LMDB fed by 64 tasks", "(Rewind ÷ ceiling)"))
    pairs.append(("4 no-sync 64 sessions: Rewind",
                  "4 no-sync 64 sessions: raw LMDB NOSYNC fed by 64 tasks", "(Rewind ÷ ceiling)"))
    for sessions in (1, 64):
        pairs.append((f"4 no-sync {sessions} sessions: Rewind",
                      f"4 no-sync {sessions} sessions: raw LMDB NOSYNC same batch", "≥ 0.7×"))
        pairs.append((f"4 no-sync {sessions} sessions: Rewind",
                      f"4 no-sync {sessions} sessions: raw LMDB NOSYNC WRITEMAP same batch", "(like the store)"))
        pairs.append((f"4 no-sync bulk {sessions} sessions: Rewind",
                      f"4 no-sync bulk {sessions} sessions: raw LMDB NOSYNC same batch", "≥ 0.7×"))
    # GRDB at Rewind's durability (FULL) for the target; NORMAL, weaker, for reference.
    pairs.append(("2 durable one per commit: Rewind", "5 GRDB FULL one per transaction", "≥ 3×"))
    pairs.append(("2 durable one per commit: Rewind", "5 GRDB NORMAL one per transaction", "(weaker baseline)"))
    pairs.append(("3 group commit 64 sessions: Rewind", "5 GRDB FULL batched (64 sessions' batch)", "≥ 3×"))
    pairs.append(("3 group commit 64 sessions: Rewind", "5 GRDB FULL 64 concurrent writers", "(64 writers)"))
    # What bounds the GRDB target: the raw LMDB baselines against the same GRDB rows.
    pairs.append(("2 durable one per commit: raw LMDB", "5 GRDB FULL one per transaction", "(raw ÷ GRDB)"))
    pairs.append(("2 durable one per commit: raw LMDB", "5 GRDB NORMAL one per transaction", "(raw ÷ GRDB NORMAL)"))
    pairs.append(("3 group commit 64 sessions: raw LMDB same batch", "5 GRDB FULL batched (64 sessions' batch)",
                  "(raw ÷ GRDB)"))
    pairs.append(("6 projection rebuild over 1,000,000 records: Rewind", None, "≥ 1 M records/s"))
    pairs.append(("6 replay seek to a random version of a 1,000,000-version session: Rewind", None, "< 1 ms median"))
    pairs.append(("6 resume a 100,000-version session: Rewind", None, ""))

    print("| Benchmark | Durability | Throughput (p50) | Wall clock p50 / p99 | Mallocs | Batch | Baseline "
          "| Baseline durability | Baseline throughput | Ratio | Target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, baseline, target in pairs:
        own = results.get(name)
        if own is None or "throughput" not in own:
            print(f"| {name} | {durability(name)} | not measured | | | | | | | | {target} |")
            continue
        base = results.get(baseline, {}) if baseline else {}
        ratio = f"{own['throughput'] / base['throughput']:.2f}×" if base.get("throughput") else "–"
        mallocs = f"{own['mallocs']:.0f}" if "mallocs" in own else "–"
        batch = f"{own['batch']:.0f}" if "batch" in own else "–"
        print(f"| {name} | {durability(name)} | {rate(own['throughput'])} "
              f"| {duration(own.get('p50'))} / {duration(own.get('p99'))} "
              f"| {mallocs} | {batch} | {baseline or '–'} | {durability(baseline)} "
              f"| {rate(base['throughput']) if base.get('throughput') else '–'} "
              f"| {ratio} | {target} |")


def interleaved(results):
    print()
    print("Interleaved (each iteration runs Rewind and its baselines back to back; time per transition; "
          "ratio = Rewind's throughput ÷ the baseline's, or the ceiling's ÷ raw LMDB's):")
    print()
    columns = [("raw LMDB", "raw LMDB"), ("GRDB FULL", "GRDB FULL"), ("GRDB NORMAL", "GRDB NORMAL"),
               ("GRDB FULL 64 writers", "GRDB FULL 64 writers")]
    header = ["Benchmark", "Durability (Rewind / raw LMDB)", "Rewind p50 / p99", "Batch"]
    for _, title in columns:
        header += [f"{title} p50 / p99", f"Rewind ÷ {title}"]
    header += ["raw LMDB fed by 64 tasks p50 / p99", "it ÷ raw LMDB", "Rewind ÷ it"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, own in results.items():
        if not name.startswith("7 ") or "Rewind" not in own:
            continue
        rewind, raw, ceiling = own["Rewind"], own.get("raw LMDB"), own.get("ceiling")
        row = name[len("7 interleaved "):].split(":")[0]
        if row.startswith(("lastCommitMayRollBack", "noSync")):
            continue  # the durability-level rows: their own table below
        raw_label = LABELS["rawLMDBNoSync"] if row.startswith("no-sync") else LABELS["rawLMDBSynced"]
        rewind_label = LABELS["rewindNoSync"] if row.startswith("no-sync") else LABELS["rewindDurable"]
        cells = [row, f"{rewind_label} / {raw_label}", f"{duration(rewind[0])} / {duration(rewind[1])}",
                 f"{own['batch']:.0f}" if "batch" in own else "1"]
        for side, _ in columns:
            other = own.get(side)
            cells += [f"{duration(other[0])} / {duration(other[1])}", f"{other[0] / rewind[0]:.2f}×"] if other else ["–", "–"]
        if ceiling and raw:
            cells += [f"{duration(ceiling[0])} / {duration(ceiling[1])}", f"{raw[0] / ceiling[0]:.2f}×",
                      f"{ceiling[0] / rewind[0]:.2f}×"]
        else:
            cells += ["–", "–", "–"]
        print("| " + " | ".join(cells) + " |")
    print()
    print("Durability of the GRDB columns: FULL = " + LABELS["grdbFull"] + "; NORMAL = " + LABELS["grdbNormal"] + ".")


def durable_breakdown(results):
    """Issue 19: where a durable one-per-commit send's time goes beyond raw LMDB's commit, from the
    two attribution baselines of the interleaved durable row."""
    own = next((v for n, v in results.items() if n.startswith("7 interleaved durable one per commit:")), None)
    if not own or "Rewind" not in own or "raw LMDB" not in own:
        return
    like, fed = own.get("raw LMDB WRITEMAP reserved"), own.get("raw LMDB WRITEMAP reserved fed by one task")
    dispatched = own.get("raw LMDB WRITEMAP reserved fed by one task, dispatch queue")
    if not fed or not like:
        return
    rewind, raw = own["Rewind"][0], own["raw LMDB"][0]
    print()
    print("Durable one per commit, where the time goes (p50 per commit, same iterations; each step adds one thing):")
    print()
    print("| Side | p50 | raw LMDB's throughput ÷ its | added by this step |")
    print("|---|---|---|---|")
    # The hop as the engine makes it (a dispatch queue's work item) when the row has it (since
    # 2026-11-30); a thread of its own waiting on a condition is printed after the table.
    hop = dispatched or fed
    hop_label = ("+ the engine's handoff: a suspending task, a dispatch queue's work item commits and resumes it"
                 if dispatched else "+ reached as a send reaches its commit: a suspending task, a commit thread and back")
    steps = [("raw LMDB (synced, no WRITEMAP; the target's baseline)", raw),
             ("+ the store's environment: WRITEMAP, map reserved on disk", like[0]),
             (hop_label, hop[0]),
             ("+ the engine: Rewind durable, one session", rewind)]
    previous = raw
    for label, value in steps:
        added = value - previous
        print(f"| {label} | {duration(value)} | {raw / value:.2f}× | {'−' if added < 0 else ''}{duration(abs(added))} |")
        previous = value
    if dispatched:
        added = fed[0] - like[0]
        print()
        print(f"The same handoff to a thread of its own waiting on a condition: {duration(fed[0])} "
              f"({raw / fed[0]:.2f}×, {'−' if added < 0 else '+'}{duration(abs(added))} over the store's environment).")


# Issue 23 §2: each durability level, one transition per commit, against SQLite (GRDB) at the
# matching level and raw LMDB with the same sync flags, interleaved: (level, row name prefix,
# Rewind's label, SQLite side, its label, raw LMDB side, its label).
LEVELS = [
    ("durable", "7 interleaved durable one per commit:", "rewindDurable", "GRDB FULL", "grdbFull",
     "raw LMDB", "rawLMDBSynced"),
    ("lastCommitMayRollBack", "7 interleaved lastCommitMayRollBack one per commit:",
     "rewindLastCommitMayRollBack", "GRDB NORMAL", "grdbNormal", "raw LMDB NOMETASYNC", "rawLMDBNoMetaSync"),
    ("noSync", "7 interleaved noSync one per commit:", "rewindNoSync", "GRDB OFF", "grdbOff",
     "raw LMDB NOSYNC", "rawLMDBNoSync"),
]


def levels(results):
    print()
    print("Durability levels, one transition per commit, interleaved (latency p50 / p99 per commit; "
          "throughput = 1 / p50; ratio = Rewind's throughput ÷ the other's):")
    print()
    header = ["Level", "Rewind durability", "Rewind p50 / p99", "Rewind throughput", "SQLite (GRDB) at the matching level",
              "its p50 / p99", "its throughput", "Rewind ÷ SQLite", "raw LMDB, same flags, p50 / p99",
              "Rewind ÷ raw LMDB", "Target"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for level, prefix, rewind_label, sqlite, sqlite_label, raw, raw_label in LEVELS:
        own = next((values for name, values in results.items() if name.startswith(prefix)), None)
        if own is None or "Rewind" not in own:
            print(f"| {level} | {LABELS[rewind_label]} | not measured | | {sqlite}: {LABELS[sqlite_label]} "
                  f"| | | | | | ≥ 1.0× |")
            continue
        rewind, other, base = own["Rewind"], own.get(sqlite), own.get(raw)
        cells = [level, LABELS[rewind_label], f"{duration(rewind[0])} / {duration(rewind[1])}", rate(1 / rewind[0]),
                 f"{sqlite}: {LABELS[sqlite_label]}"]
        cells += [f"{duration(other[0])} / {duration(other[1])}", rate(1 / other[0]), f"{other[0] / rewind[0]:.2f}×"] \
            if other else ["–", "–", "–"]
        cells += [f"{duration(base[0])} / {duration(base[1])} ({LABELS[raw_label]})", f"{base[0] / rewind[0]:.2f}×"] \
            if base else ["–", "–"]
        cells.append("≥ 1.0×")
        print("| " + " | ".join(cells) + " |")


def archive(results):
    """Item 16: a session's archive exported and imported against raw LMDB reading and writing
    (MDB_NOSYNC) as many records of the same size, interleaved; time per record."""
    own = next((v for n, v in results.items() if n.startswith("16 archive")), None)
    metrics = (own or {}).get("metrics", {})
    if not metrics:
        return
    print()
    print("| Archive (item 16), interleaved per iteration | Rewind p50 / p99 | raw LMDB p50 / p99 | Rewind ÷ raw LMDB | Target |")
    print("|---|---|---|---|---|")
    for rewind, raw, title, target in [
            ("Rewind export ns/record", "raw LMDB read ns/record", "export ÷ raw read", "≥ 0.5×"),
            ("Rewind export ns/record", "raw LMDB read + record check ns/record",
             "export ÷ raw read + the check of each record (the floor of a checking export)", "(the bound)"),
            ("Rewind import ns/record", "raw LMDB NOSYNC write ns/record", "import ÷ raw write", "≥ 0.5×")]:
        mine, theirs = metrics.get(rewind), metrics.get(raw)
        if not mine or not theirs:
            continue
        cells = [title, f"{duration(mine[0] * 1e-9)} / {duration(mine[1] * 1e-9)}",
                 f"{duration(theirs[0] * 1e-9)} / {duration(theirs[1] * 1e-9)}", f"{theirs[0] / mine[0]:.3f}×", target]
        print("| " + " | ".join(cells) + " |")


def metric_cell(kind, value):
    """A fleet metric's cell: a rate, a ratio kept in percent, or a duration in µs or ns."""
    if kind == "rate":
        return rate(value)
    if kind == "ratio":
        return f"{value / 100:.2f}×"
    return duration(value * (1e-6 if kind == "µs" else 1e-9))


def fleet(results, text):
    """Item 8, the fleet server (FleetBenchmarks, run by `make bench-fleet`): ingestion against
    COPY, batch latency, bytes per million records, and the PostgreSQL settings the run read back."""
    ingestion = next((v for n, v in results.items() if n.startswith("8 fleet ingestion")), None)
    storage = next((v for n, v in results.items() if n.startswith("8 fleet storage")), None)
    push = next((v for n, v in results.items() if n.startswith("8 fleet push")), None)
    if ingestion is None and storage is None and push is None and not any(
            n.startswith("8 fleet projection catch-up") for n in results):
        return
    print()
    settings = re.findall(r"fleet: PostgreSQL settings read back: (.*)", text)
    if settings:
        print(f"PostgreSQL settings read back by the run: {settings[-1].strip()}")
        print()
    metrics = (ingestion or {}).get("metrics", {})
    if metrics:
        print("| Fleet (item 8), interleaved per iteration | p50 | p99 | samples | Target |")
        print("|---|---|---|---|---|")
        rows = [("ingestion records/s", "rate", ""), ("COPY FROM STDIN records/s", "rate", ""),
                ("ingestion ÷ COPY (%)", "ratio", "≥ 0.5×"), ("ingestion batch latency (µs)", "µs", "")]
        for label, kind, target in rows:
            value = metrics.get(label)
            if value is None:
                print(f"| {label} | not measured | | | {target} |")
                continue
            p50, p99, samples = value
            cells = [metric_cell(kind, p50), metric_cell(kind, p99)]
            name = "ingestion ÷ COPY (throughput)" if kind == "ratio" else label.replace(" (µs)", "")
            print(f"| {name} | {cells[0]} | {cells[1]} | {samples} | {target} |")
    catch_up = next((v for n, v in results.items() if n.startswith("8 fleet projection catch-up")), None)
    caught = (catch_up or {}).get("metrics", {})
    if caught:
        if not metrics:
            print("| Fleet (item 8), interleaved per iteration | p50 | p99 | samples | Target |")
            print("|---|---|---|---|---|")
        for label, kind in [("server catch-up records/s", "rate"), ("in-memory fold records/s", "rate"),
                            ("server ÷ in-memory fold (%)", "ratio")]:
            value = caught.get(label)
            if value is None:
                print(f"| {label} | not measured | | | |")
                continue
            p50, p99, samples = value
            cells = [metric_cell(kind, p50), metric_cell(kind, p99)]
            name = "projection catch-up ÷ the same fold in memory" if kind == "ratio" else f"projection {label}"
            print(f"| {name} | {cells[0]} | {cells[1]} | {samples} | |")
    elif metrics:
        print("| projection catch-up rate on the server | not measured in this run | | | |")
    pushed = (push or {}).get("metrics", {})
    if pushed:
        print()
        print("| `rewind push` (item 8, issue 34), interleaved with 64 devices' ingestion | p50 | p99 | samples | Target |")
        print("|---|---|---|---|---|")
        for label, kind, target in [
                ("push records/s", "rate", ""), ("64-device ingestion records/s", "rate", ""),
                ("push ÷ ingestion (%)", "ratio", "≥ 0.8×"), ("push CPU per record (ns)", "ns", ""),
                ("server CPU per pushed record (ns)", "ns", ""), ("push CPU ÷ server CPU (%)", "ratio", "≤ 1×")]:
            value = pushed.get(label)
            if value is None:
                print(f"| {label} | not measured | | | {target} |")
                continue
            p50, p99, samples = value
            cells = [metric_cell(kind, p50), metric_cell(kind, p99)]
            print(f"| {label.replace(' (%)', '').replace(' (ns)', '')} | {cells[0]} | {cells[1]} | {samples} | {target} |")
    sizes = (storage or {}).get("metrics", {})
    if sizes:
        print()
        print("| Bytes per 1,000,000 records (fleet of 64 device stores, loaded through ingestion) | MB |")
        print("|---|---|")
        for label, (p50, _, _) in sizes.items():
            print(f"| {label.replace(' bytes per 1M records', '')} | {p50 / 1e6:.1f} |")


if __name__ == "__main__":
    main()
