"""The class experiment bench's tables: latency per screen, the site's CPU, the other class."""

from __future__ import annotations

from collections import Counter

from other_class import OTHER_LAB


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(rows: list, args) -> None:
    """Three tables, one row a channel; `rows`: (channel, quiet presses, result, load avg
    before, after), `result` as `class_experiment.experiment` returns it."""

    def s3(values: list[float], q: float) -> str:
        return f"{pct(values, q):.3f}"

    print(
        "\n| channel | load avg before → after | following | changes | change → phone p50 "
        "| p95 | max | not shown | teacher's move → phone p95 | → projector p95 "
        "| → projector's charts p95 |"
    )
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for channel, _quiet, r, before, after in rows:
        print(
            f"| {channel} | {before:.1f} → {after:.1f} | {r['following']} after "
            f"{r['following_s']:.1f} s | {r['changes']} | {s3(r['phone'], 0.5)} "
            f"| {s3(r['phone'], 0.95)} | {s3(r['phone'], 1)} | {r['missed']} "
            f"| {s3(r['move_phone'], 0.95)} | {s3(r['projector'], 0.95)} "
            f"| {s3(r['charts'], 0.95)} |"
        )
    print("\nCPU seconds per second over the measured window, by role (bench/role_cpu.py):")
    programs = sorted({name for row in rows for name in row[2]["cpu"]})
    columns = " | ".join(programs)
    print(
        f"| channel | phone calls/s | call p95 | calls failed | {columns} | site "
        "| bench itself | bench loop lag p95 |"
    )
    print("| --- |" + " ---: |" * (len(programs) + 6))
    for channel, _quiet, r, _b, _a in rows:
        calls = [s for s, status in r["ticks"] if status == 200]
        failed = len(r["ticks"]) - len(calls)
        cpu = r["cpu"]
        print(
            f"| {channel} | {len(r['ticks']) / r['wall_s']:.0f} | {s3(calls, 0.95)} | {failed} | "
            + " | ".join(f"{cpu.get(name, 0.0):.2f}" for name in programs)
            + f" | {sum(cpu.values()):.2f} | {r['bench_cpu']:.2f} | {s3(r['lag'], 0.95)} |"
        )
    print(
        f"\nAnother class: Run on {OTHER_LAB} (a seed of its own) every {args.every:g} s, "
        "Run → result in seconds; quiet: the same presses just before, no experiment"
    )
    print(
        "| channel | presses | p50 | p95 | of which queue wait p95 | run p95 | quiet presses "
        "| quiet p50 | quiet p95 | failed | from the store |"
    )
    print("| --- |" + " ---: |" * 10)
    for channel, quiet, r, _b, _a in rows:
        answered = [t for t in r["other"] if not t.error]
        busy = [t.total_s for t in answered]
        calm = [t.total_s for t in quiet if not t.error]
        waited, ran = [t.queue_s for t in answered], [t.run_s for t in answered]
        failed = sum(1 for t in [*r["other"], *quiet] if t.error)
        stored = sum(1 for t in [*r["other"], *quiet] if t.from_store)
        print(
            f"| {channel} | {len(busy)} | {s3(busy, 0.5)} | {s3(busy, 0.95)} | {s3(waited, 0.95)} "
            f"| {s3(ran, 0.95)} | {len(calm)} | {s3(calm, 0.5)} | {s3(calm, 0.95)} | {failed} "
            f"| {stored} |"
        )
        for error in sorted({t.error for t in [*r["other"], *quiet] if t.error})[:3]:
            print(f"  failed: {error}")
    for channel, _quiet, r, _b, _a in rows:
        refused = Counter(status for _s, status in r["ticks"] if status != 200)
        print(
            f"{channel}: {r['moves']} moves of the teacher; {r['chart_failures']} chart fetches "
            f"failed; {args.phones} phones joined in {r['joined_s']:.1f} s; calls failed by "
            f"HTTP status (0: no answer): {dict(refused) or 'none'}"
        )
        if channel == "sse":
            print(
                f"{channel}: streams refused by HTTP status (those pages polled state.json, "
                f"as live.js does): {dict(r['streams_refused']) or 'none'}; streams cut off "
                f"and opened again: {r['streams_reopened']}"
            )
