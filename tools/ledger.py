"""The claims ledger page and the verdict badges on content pages, in one language.

Both read the verdicts that tools/claims.py computed from the registry's rules; neither
decides anything itself.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import claims as registry
import numbers_table

UI = {
    "en": {
        "title": "Claims ledger",
        "intro": ("Every claim the [source explanations]({sources}) make, with the rule that decides "
                  "it and the verdict that rule gives on the measurements of this site's "
                  "experiments. The rules were written before the experiments ran; the build "
                  "computes each verdict from the recorded numbers (tools/claims.py)."),
        "kinds_intro": ("A *construction* (weights set by hand) shows that a mechanism can work; it "
                        "never verifies a claim about what models do. Trained toy models count over "
                        "at least 8 random seeds, never the best run. Each of their verdicts shows how "
                        "often it survives redrawing the seeds (1,000 resamplings with replacement); "
                        "below 90 % the build trains twice the seeds, up to the cap the registry sets, "
                        "and a verdict still unsettled there is shown as *nuanced*, undecided."),
        "counts": "{total} claims: {counts}.",
        "index": "Claim", "verdict": "Verdict", "source": "Source", "rule": "Rule",
        "stability": "Stability",
        "stable": ("the rule gives *{rule}* in {share} of {draws} resamplings of the {n} seeds "
                   "(stable from 90 %)"),
        "undecided": ("undecided at n = {n}: on the recorded seeds the rule gives *{rule}*, but only "
                      "in {share} of {draws} resamplings of the seeds (90 % needed), and {n} seeds is "
                      "this claim's cap; shown as *nuanced*"),
        "undecided_short": "undecided at n = {n}",
        "experiments": "Experiments", "no_experiment": "No experiment yet.",
        "ledger_link": "ledger entry", "not_run": "not run",
        "verdicts": {"verified": "verified", "nuanced": "nuanced", "refuted": "refuted",
                     "open": "open"},
        "kinds": {"construction": "Construction (weights set by hand)",
                  "trained": "Trained toy model", "real": "Real pretrained model",
                  "equivalence": "Mathematical fact / equivalence", "literature": "Literature"},
        "section": "source {doc} {part}",
    },
    "zh": {
        "title": "论断账本",
        "intro": ("[原文]({sources})提出的每一条论断，判定它的规则，以及这条规则根据本站实验的测量结果"
                  "给出的结论。规则在实验运行之前就已写定；每条结论都由构建过程根据记录下来的数字算出"
                  "（tools/claims.py）。"),
        "kinds_intro": ("*手工构造*（权重由人设定）只能说明某种机制可以成立，不能证实关于模型实际行为的论断。"
                        "训练出来的小模型至少看 8 个随机种子，从不挑最好的一次。它们的每条结论都注明重抽种子后"
                        "还能保持多少（有放回地重抽 1000 次）；低于 90% 时，构建过程把种子数加倍重新训练，"
                        "直到登记表定下的上限；到了上限仍不稳定的结论显示为*部分成立*，并注明未定。"),
        "counts": "共 {total} 条论断：{counts}。",
        "index": "论断", "verdict": "结论", "source": "出处", "rule": "判定规则",
        "stability": "稳定性",
        "stable": "把 {n} 个种子有放回地重抽 {draws} 次，规则在其中 {share} 的重抽里给出“{rule}”（90% 起算稳定）",
        "undecided": ("在 n = {n} 时仍未定：按记录下的种子，规则给出“{rule}”，但把种子重抽 {draws} 次，"
                      "只有 {share} 给出同样的结论（需要 90%），而 {n} 已是这条论断的种子上限；因此显示为“部分成立”"),
        "undecided_short": "n = {n} 时未定",
        "experiments": "实验", "no_experiment": "尚无实验。",
        "ledger_link": "账本条目", "not_run": "未运行",
        "verdicts": {"verified": "证实", "nuanced": "部分成立", "refuted": "推翻", "open": "待定"},
        "kinds": {"construction": "手工构造（权重由人设定）", "trained": "训练出来的小模型",
                  "real": "真实的预训练模型", "equivalence": "数学事实 / 等价性检验",
                  "literature": "文献"},
        "section": "原文 {doc} {part}",
    },
}

# How a source section is named in a link: anchor -> (en, zh).
SECTIONS = {
    "a-1": ("§1", "第 1 节"), "a-2": ("§2", "第 2 节"), "a-3": ("§3", "第 3 节"), "a-4": ("§4", "第 4 节"),
    "a-heads-1": ("multi-head §1", "多头部分第 1 节"), "a-heads-2": ("multi-head §2", "多头部分第 2 节"),
    "a-heads-3": ("multi-head §3", "多头部分第 3 节"), "a-heads-4": ("multi-head §4", "多头部分第 4 节"),
    "a-summary": ("summary", "总结"),
    "a-why-1": ("why heads differ §1", "各司其职第 1 节"), "a-why-2": ("why heads differ §2", "各司其职第 2 节"),
    "a-why-3": ("why heads differ §3", "各司其职第 3 节"), "a-why-4": ("why heads differ §4", "各司其职第 4 节"),
    "b-intro": ("introduction", "引言"), "b-1": ("§1", "第 1 节"), "b-2": ("§2", "第 2 节"),
    "b-3-1": ("§3.1", "第 3.1 节"), "b-3-2": ("§3.2", "第 3.2 节"), "b-4": ("§4", "第 4 节"),
    "b-conclusion": ("conclusion", "结论"),
    "b-extra-qk": ("addendum: Q and K", "外一篇：Q 与 K"),
    "b-extra-example": ("addendum: 开车", "外一篇：“开车”的例子"),
    "b-extra-kv": ("addendum: K and V", "外一篇：K 与 V"),
    "b-extra-v": ("addendum: V's continuity", "外一篇：V 的连续性"),
    "b-extra-abstract": ("addendum: Q/K vs V", "外一篇：Q/K 与 V"),
}


def reference_labels(lang: str) -> dict[str, str]:
    """Each entry of the references page by its heading ("Vaswani 等（2017）"), by anchor."""
    page = Path(__file__).resolve().parent.parent / "docs" / lang / "references.md"
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    return {key: label for label, key in re.findall(r"^## (.+?) \{#([\w-]+)\}\s*$", text, re.M)}


def stability(assessment, lang: str, short: bool = False) -> str:
    """How often the verdict survives resampling the seeds, in words ('' when no seeds).
    The share is rounded down, so a verdict below 90 % never reads as 90 %."""
    if assessment is None or assessment.stability is None:
        return ""
    ui = UI[lang]
    share = f"{math.floor(100 * assessment.stability + 1e-9)}" + (" %" if lang == "en" else "%")
    if short:
        return ui["undecided_short"].format(n=assessment.n_seeds) if assessment.undecided else share
    draws = f"{registry.RESAMPLINGS:,}" if lang == "en" else str(registry.RESAMPLINGS)
    template = ui["undecided"] if assessment.undecided else ui["stable"]
    return template.format(rule=ui["verdicts"][assessment.rule_verdict], share=share, draws=draws,
                           n=assessment.n_seeds)


def verdict_badge(verdict: str | None, lang: str) -> str:
    ui = UI[lang]
    label = ui["verdicts"][verdict] if verdict else ui["not_run"]
    return f'<span class="verdict verdict--{verdict or "undecided"}">{label}</span>'


def source_link(anchor: str, lang: str, sources_href: str | None) -> str:
    if anchor not in SECTIONS:
        raise ValueError(f"unknown source section '{anchor}' (tools/ledger.py SECTIONS)")
    doc = anchor[0].upper()
    part = SECTIONS[anchor][0 if lang == "en" else 1]
    label = UI[lang]["section"].format(doc=doc, part=part)
    return f"[{label}]({sources_href}#{anchor})" if sources_href else label


def _measured(experiment: registry.Experiment, results: dict, lang: str) -> str:
    if experiment.kind == "literature":
        return experiment.note.get(lang, "")
    recorded = results.get(experiment.snippet, {}).get("numbers", {})
    parts = []
    for key in experiment.show:
        if key not in recorded:
            continue
        about = recorded[key].get("about", {}).get(lang) or f"`{key}`"
        parts.append(f"{about} = {numbers_table.shown(recorded[key], lang)}")
    return ("；" if lang == "zh" else "; ").join(parts)


def page(lang: str, claims: dict[str, registry.Claim], verdicts: dict[str, str | None],
         results: dict, where: dict[str, tuple[str, str]], sources_href: str | None,
         references_href: str | None, assessments: dict | None = None) -> str:
    """The ledger in Markdown. ``where`` maps a snippet to (page path, page title);
    ``assessments`` (tools/claims.assess) add each trained verdict's stability."""
    assessments = assessments or {}
    colon = "：" if lang == "zh" else ":"
    ui = UI[lang]
    counts = {v: sum(1 for x in verdicts.values() if x == v) for v in registry.VERDICTS}
    count_text = ("、" if lang == "zh" else ", ").join(
        f"{verdict_badge(v, lang)} {counts[v]}" for v in registry.VERDICTS)
    lines = [f"# {ui['title']}", "", ui["intro"].format(sources=sources_href or "#"), "",
             ui["kinds_intro"], "", ui["counts"].format(total=len(claims), counts=count_text), "",
             f"| {ui['index']} | {ui['verdict']} | {ui['stability']} |", "|---|---|---|"]
    for claim_id, claim in claims.items():
        lines.append(f"| [{claim_id}](#{claim_id}) {claim.title[lang]} "
                     f"| {verdict_badge(verdicts[claim_id], lang)} "
                     f"| {stability(assessments.get(claim_id), lang, short=True) or '—'} |")
    lines.append("")
    for claim_id, claim in claims.items():
        sources = "、".join if lang == "zh" else ", ".join
        lines += [f"## {claim_id} · {claim.title[lang]} {{#{claim_id}}}", "",
                  '<div class="claim-text" markdown>', "", claim.text[lang], "", "</div>", "",
                  f"**{ui['verdict']}{colon}** {verdict_badge(verdicts[claim_id], lang)}", "",
                  *([f"**{ui['stability']}{colon}** {stability(assessments[claim_id], lang)}", ""]
                    if stability(assessments.get(claim_id), lang) else []),
                  f"**{ui['source']}{colon}** " + sources(source_link(a, lang, sources_href)
                                                          for a in claim.source), "",
                  f"**{ui['rule']}{colon}** {claim.rule_text[lang]}", "",
                  f"**{ui['experiments']}{colon}**", ""]
        if not claim.experiments:
            lines += [f"- {ui['no_experiment']}"]
        for experiment in claim.experiments:
            kind = f"*{ui['kinds'][experiment.kind]}*"
            if experiment.kind == "literature":
                target = (f"{references_href}#{experiment.reference}" if references_href else None)
                label = reference_labels(lang).get(experiment.reference, experiment.reference)
                title = f"[{label}]({target})" if target else label
            else:
                path, page_title = where.get(experiment.snippet, ("", experiment.snippet))
                title = f"[{page_title}]({path})" if path else f"`snippets/{experiment.snippet.replace('.', '/')}.py`"
            measured = _measured(experiment, results, lang)
            lines.append(f"- {kind} · {title}" + (f" — {measured}" if measured else ""))
        lines.append("")
    return "\n".join(lines) + "\n"


def badges(snippet: str, lang: str, claims: dict[str, registry.Claim],
           verdicts: dict[str, str | None], ledger_href: str, assessments: dict | None = None) -> str:
    """The claims a snippet's experiment bears on: each with its one verdict, linked to the ledger."""
    rows = []
    for claim_id, claim in claims.items():
        if any(e.snippet == snippet for e in claim.experiments):
            rows.append(claim_badge(claim_id, lang, claims, verdicts, ledger_href, assessments))
    return "\n".join(rows)


def claim_badge(claim_id: str, lang: str, claims: dict[str, registry.Claim],
                verdicts: dict[str, str | None], ledger_href: str, assessments: dict | None = None) -> str:
    claim = claims[claim_id]
    note = stability((assessments or {}).get(claim_id), lang)
    note = f"\n\n*{UI[lang]['stability']}{'：' if lang == 'zh' else ':'}* {note}" if note else ""
    return (f'<div class="claim-badge" markdown>\n\n'
            f'[{claim_id} · {claim.title[lang]}]({ledger_href}#{claim_id}) '
            f'{verdict_badge(verdicts.get(claim_id), lang)}\n\n{claim.text[lang]}{note}\n\n</div>\n')
