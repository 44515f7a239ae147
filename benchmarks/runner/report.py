"""The report of a run: results.json (the rows), results.md (tables, settings, machine) and
ratios.png (Ember's ratio per row against its goal)."""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

REQUIRED_KEYS = ("name", "threads", "ember_s", "reference", "reference_s", "ratio", "goal")


def fmt_time(s: float | None) -> str:
    if s is None:
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def fmt_ratio(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.2f}"


def verdict(row: dict) -> str:
    if row["met"] is None:
        return "" if row["goal"] is None or row["ember_s"] is None else "no goal"
    return "met" if row["met"] else "**missed**"


def row_line(row: dict) -> str:
    ember = "ember n/a" if row["ember_s"] is None else f"ember {fmt_time(row['ember_s'])}"
    goal = "" if row["goal"] is None else f" (goal {row['goal']}: {verdict(row).strip('*') or 'n/a'})"
    return (f"{row['name']} t={row['threads']}: {ember}, {row['reference']} "
            f"{fmt_time(row['reference_s'])}, ratio {fmt_ratio(row['ratio'])}{goal}; "
            f"other CPU <= {row['other_cpu']:.2f} cores"
            + (f", {row['retries']} retried" if row["retries"] else "")
            + (f", {row['noisy_trials']} noisy kept" if row["noisy_trials"] else ""))


def is_main(row: dict) -> bool:
    """Rows with an Ember side (even one still to come); the rest are references alone."""
    return not (row["kind"] == "cpp" and row["ember_s"] is None)


def console_table(rows: list[dict]) -> str:
    head = ("case", "thr", "ember", "reference", "ref time", "ratio", "goal", "")
    lines = [head] + [
        (r["name"], str(r["threads"]), fmt_time(r["ember_s"]), r["reference"],
         fmt_time(r["reference_s"]), fmt_ratio(r["ratio"]),
         "" if r["goal"] is None else f"<= {r['goal']}", verdict(r).strip("*"))
        for r in rows if is_main(r)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = ["  ".join(c.ljust(w) if i in (0, 3) else c.rjust(w)
                     for i, (c, w) in enumerate(zip(line, widths))).rstrip() for line in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    met = [r for r in rows if r["met"] is not None]
    missed = [f"{r['name']} t={r['threads']} vs {r['reference']}" for r in met if not r["met"]]
    out.append(f"\n{len(met) - len(missed)}/{len(met)} goals met"
               + (f"; missed: {', '.join(missed)}" if missed else ""))
    return "\n".join(out)


def other_cell(row: dict) -> str:
    return f"{row['other_cpu']:.2f}" + (f" ({row['noisy_trials']} noisy)" if row["noisy_trials"] else "")


def md_table(head: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    out = ["| " + " | ".join(head) + " |",
           "| " + " | ".join("---:" if i in right else "---" for i in range(len(head))) + " |"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return out


def git_describe(repo: Path) -> str:
    try:
        sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return sha + (" with local changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> str:
    model = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB memory"
    except (OSError, ValueError, IndexError):
        pass
    return f"{model}, {os.cpu_count()} CPUs{mem}, Linux {platform.release()}"


def markdown(rows: list[dict], ctx: dict) -> str:
    mode = ctx["mode"]
    repo = Path(__file__).resolve().parents[2]
    L = ["# Ember benchmarks", ""]
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    L.append(f"{when}, commit {git_describe(repo)}, {mode.name} run"
             + (f" (filter `{ctx['filter']}`)" if ctx["filter"] else "")
             + f", threads {', '.join(map(str, ctx['threads']))}, {ctx['elapsed_s']:.0f} s.  ")
    L.append(f"Machine: {machine()}.")
    if ctx["quick"]:
        L += ["", "**QUICK run**: 2 rounds of short trials and smaller memory-bound sizes (4M "
              "elements, in cache): it proves the runner works; its figures mean little."]
    L += ["", "Ratio = Ember's time / the reference's (below 1: Ember is faster); a goal is met "
          "when ratio <= goal. Each time is the median over rounds (Ember and the reference "
          f"alternating, {mode.rounds} trials each) of each trial's median. \"other CPU\": the "
          "most CPU other processes used during any kept trial of the row, in cores (from "
          f"/proc/stat); a trial over {ctx['max_other_cpu']} cores was retried (up to "
          f"{ctx['retries']} times). Reference \"stream\": the time this machine's STREAM kernel "
          "would take to move the case's bytes (ratio 1.25 = 80% of bandwidth)."]

    main = [r for r in rows if is_main(r)]
    L += ["", "## Ember against its references", ""]
    L += md_table(
        ["case", "threads", "ember", "reference", "reference time", "ratio", "goal", "", "other CPU",
         "note"],
        [[r["name"], str(r["threads"]),
          fmt_time(r["ember_s"]) if r["ember_s"] is not None else "not available yet",
          r["reference"], fmt_time(r["reference_s"]), fmt_ratio(r["ratio"]),
          "" if r["goal"] is None else f"<= {r['goal']}", verdict(r), other_cell(r),
          r["note"]] for r in main], {1, 2, 4, 5, 8})
    met = [r for r in rows if r["met"] is not None]
    n = ctx["noise"]
    L += ["", f"{sum(r['met'] for r in met)}/{len(met)} goals met. Noise: {n.trials} trials, "
          f"{n.retries} attempts measured again, {n.noisy_kept} trials kept noisy (flagged "
          f"\"noisy\" in their rows), {n.waited_s:.0f} s spent waiting for a quiet machine"
          + (" (the noise budget ran out)" if n.budget_spent else "") + "."]

    refs = [r for r in rows if not is_main(r)]
    py = {}
    for r in rows:
        if r["kind"] == "python":
            py.setdefault((r["name"], r["threads"]), r)
    if refs or py:
        L += ["", "## References alone", ""]
    if refs:
        L += md_table(["case", "threads", "reference", "time", "other CPU", "note"],
                      [[r["name"], str(r["threads"]), r["reference"], fmt_time(r["reference_s"]),
                        other_cell(r), r["note"]] for r in refs], {1, 3, 4})
        L.append("")
    if py:
        L += md_table(
            ["case", "threads", "size", "torch", "numpy", "torch / numpy", "torch % of stream",
             "numpy % of stream"],
            [[name, str(t), r.get("size", ""), fmt_time(r["times"].get("torch")),
              fmt_time(r["times"].get("numpy")),
              fmt_ratio(r["times"]["torch"] / r["times"]["numpy"])
              if r["times"].get("torch") and r["times"].get("numpy") else "n/a",
              *(f"{100 * r['fraction_of_stream'][lib]:.0f}%"
                if lib in r.get("fraction_of_stream", {}) else "" for lib in ("torch", "numpy"))]
             for (name, t), r in py.items()], {1, 3, 4, 5, 6, 7})

    L += ["", "## Memory bandwidth (stream)", ""]
    L += md_table(["threads", "copy GB/s", "triad GB/s", "best copy", "best triad", "arrays",
                   "other CPU"],
                  [[str(t), f"{s['copy']['GBps']:.1f}", f"{s['triad']['GBps']:.1f}",
                    f"{s['copy']['best_GBps']:.1f}", f"{s['triad']['best_GBps']:.1f}",
                    f"3 x {s['n'] >> 20}M float32", f"{s['other_cpu']:.2f}"]
                   for t, s in sorted(ctx["stream"].items())], {0, 1, 2, 3, 4, 6})
    L += ["", "Median over rounds of each run's median (best: the fastest repetition). Bytes as "
          "STREAM counts them (copy 8, triad 12 per float32 element; the destination's "
          "write-allocate read is not counted), as the elementwise cases count theirs."]

    L += ["", "## Reference settings", "",
          "Each reference ran once under each candidate setting (a short trial of every case "
          "it serves at that thread count); the fastest (geometric mean) was kept for the run. "
          "Thread counts are always explicit: OMP_NUM_THREADS, MKL_NUM_THREADS, "
          "OPENBLAS_NUM_THREADS and EMBER_NUM_THREADS = threads, and torch.set_num_threads.", ""]
    cal_rows = []
    for c in ctx["calibrations"]:
        for cand in c["candidates"]:
            cal_rows.append([c["reference"], str(c["threads"]), cand["setting"],
                             f"{cand['relative']:.3f}", str(cand.get("capability") or ""),
                             "**kept**" if cand["chosen"] else "", f"{cand['other_cpu']:.2f}",
                             ", ".join(c["cases"])])
    if cal_rows:
        L += md_table(["reference", "threads", "setting", "time vs kept", "capability seen",
                       "", "other CPU", "cases"], cal_rows, {1, 3, 6})
    else:
        L.append("(no reference with settings to choose ran)")

    libs = ctx["infos"]
    L += ["", "## Libraries", ""]
    for suite, lt in (ctx.get("libtorch") or {}).items():
        L.append(f"- libtorch ({suite} suite, C++, from the torch wheel): "
                 + ", ".join(f"{k} {lt[k]}" for k in ("torch_version", "cpu_capability", "num_threads")
                             if k in lt))
    for key, info in libs.items():
        extra = ", ".join(f"{k} {info[k]}" for k in ("threads", "capability") if k in info)
        L.append(f"- {key}: {info['lib']} {info.get('version', '?')}" + (f", {extra}" if extra else "")
                 + (f"; {info['config']}" if info.get("config") and info["lib"] == "numpy" else ""))
    L.append("- ember (Python): " + (f"not available yet ({ctx['ember_missing']})"
                                     if ctx["ember_missing"] else "imported"))
    notes = [n for s in ctx["suites"] for n in s.notes]
    if notes:
        L += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    torch_info = next((i for i in libs.values() if i["lib"] == "torch"), None)
    if torch_info:
        L += ["", "## torch.__config__.show()", "", "```", torch_info["config"].rstrip(), "```",
              "", "```", torch_info.get("parallel", "").rstrip(), "```"]
    return "\n".join(L) + "\n"


def chart(rows: list[dict], path: Path, quick: bool) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter

    shown = [r for r in rows if r["ratio"] is not None]
    pending = sorted({r["name"] for r in rows if r["ratio"] is None and is_main(r)})
    fig, ax = plt.subplots(figsize=(9, 1.9 + 0.3 * max(len(shown), 3)))
    if shown:
        labels = [f"{r['name']} ({r['threads']}t) / {r['reference']}" for r in shown]
        ys = list(range(len(shown)))[::-1]
        colors = ["#9e9e9e" if r["met"] is None else "#2e7d32" if r["met"] else "#c62828"
                  for r in shown]
        ax.barh(ys, [r["ratio"] for r in shown], color=colors, height=0.6)
        for y, r in zip(ys, shown):
            if r["goal"] is not None:
                ax.plot([r["goal"]] * 2, [y - 0.42, y + 0.42], color="black", lw=2)
            ax.text(r["ratio"], y, f" {r['ratio']:.2f}", va="center", fontsize=8)
        ax.set_yticks(ys, labels, fontsize=8)
        ax.set_ylim(-0.6, len(shown) - 0.4)
        ax.set_xscale("log")
        plain = FuncFormatter(lambda x, _: f"{x:g}")
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(plain)
        ax.tick_params(axis="x", which="both", labelsize=7)
        ax.axvline(1.0, color="#555555", ls=":", lw=1)
        lo = min([r["ratio"] for r in shown] + [r["goal"] for r in shown if r["goal"]] + [1.0])
        hi = max([r["ratio"] for r in shown] + [1.0])
        ax.set_xlim(lo / 1.5, hi * 1.6)
        ax.set_xlabel("Ember time / reference time (log scale; below 1: Ember is faster)",
                      fontsize=8)
        ax.legend(handles=[Patch(color="#2e7d32", label="goal met"),
                           Patch(color="#c62828", label="goal missed"),
                           Patch(color="#9e9e9e", label="no goal"),
                           Line2D([], [], color="black", lw=2, label="goal"),
                           Line2D([], [], color="#555555", ls=":", label="parity")],
                  fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    else:
        ax.set_axis_off()
        ax.text(0.5, 0.5, "no Ember ratio in this run", ha="center", va="center")
    title = "Ember vs references" + (" (QUICK run: figures mean little)" if quick else "")
    if pending:
        title += f"\nnot available yet: {', '.join(pending)}"
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def jsonable(obj):
    if dataclasses.is_dataclass(obj):
        return dataclasses.asdict(obj)
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not serialisable: {type(obj).__name__}")


def write_all(out: Path, rows: list[dict], ctx: dict) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "results.md", out / "ratios.png"]
    paths[0].write_text(json.dumps(rows, indent=2, default=jsonable) + "\n")
    paths[1].write_text(markdown(rows, ctx))
    chart(rows, paths[2], ctx["quick"])
    return paths
