"""The claims ledger page and the verdict badges on content pages, in one language.

Both read the verdicts that tools/verdicts/claims.py computed from the registry's rules; neither
decides anything itself.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import os
import re
import string
from pathlib import Path

from tools.verdicts import claims as registry
from tools.verdicts import rules_history
from tools.pages import numbers_table

UI = {
    "en": {
        "title": "Claims ledger",
        "intro": ("Every claim the [source explanations]({sources}) make, with the rule that decides "
                  "it and the verdict that rule gives on the measurements of this site's "
                  "experiments. The build computes each verdict from the recorded numbers "
                  "(tools/verdicts/claims.py).{history}"),
        "history": (" Not every rule was written before its experiment ran: of the {total} rules, "
                    "{before} were fixed before their experiment first recorded a number they read, "
                    "{written} were first written when their experiment had already recorded numbers "
                    "(the first snippets computed their own verdicts) and have not changed since, and "
                    "{revised} were revised after results were known. Each claim's card says when its "
                    "rule was fixed and lists the earlier versions (docs/rules_history.yml)."),
        "kinds_intro": ("A *construction* (weights set by hand) shows that a mechanism can work; it "
                        "never verifies a claim about what models do. Trained toy models count over "
                        "at least 8 random seeds, never the best run. Each of their verdicts shows how "
                        "often it survives redrawing the seeds (1,000 resamplings with replacement); "
                        "below 90 % the build trains twice the seeds, up to the cap the registry sets, "
                        "and a verdict still unsettled there is shown as *open*, undecided. A "
                        "refutation of what models do stands only where the same test, run on a "
                        "planted effect of the size that would make the claim true, detects it in at "
                        "least 80 % of draws; otherwise the claim is *open*: the test could not tell."),
        "how_to_read": ("**How to read a verdict.** *Verified*: the rule's test came out as the claim says. "
                        "*Nuanced*: part of the claim holds, or it holds only with a limit the rule names "
                        "(a part of the claim the rule does not test caps it here). *Refuted*: the test came "
                        "out against the claim; for a claim about what models do, only where the same test "
                        "found a planted effect of the claim's size. *Open*: the test cannot tell yet. A rule "
                        "is a list of cases checked in order: the first case whose conditions all hold gives "
                        "the verdict, and when none holds the rule's last word (*otherwise*) does. Each card's "
                        "*Why* names that case and puts each number it read beside the threshold the case "
                        "needs. In the table, *Because* gives the deciding comparison in one clause, and "
                        "*Stability* how often the rule gives the same verdict when the seeds (or a real "
                        "model's items) are drawn again. An *open* verdict with 100 % stability is the rule's "
                        "own *open* case holding in every redraw: the claim stays open because of a condition "
                        "its rule names (too few items, two halves of the data that disagree), not because "
                        "the seeds disagree."),
        "counts": "{total} claims: {counts}.",
        "index": "Claim", "verdict": "Verdict", "source": "Source", "rule": "Rule", "baseline": "Compared with",
        "because": "Because", "literature": "Literature: {papers}", "open_by_rule": "{share}, the rule's own *open* case",
        "related": "Listed beside it",
        "tested_on": "Tested on", "details": "The claim, its rule and the experiments",
        "filter": "Show", "all": "all",
        "stability": "Stability",
        "stable": ("the rule gives *{rule}* in {share} of {draws} resamplings of the {n} seeds "
                   "(stable from 90 %)"),
        "undecided": ("undecided at n = {n}: on the recorded seeds the rule gives *{rule}*, but only "
                      "in {share} of {draws} resamplings of the seeds (90 % needed), and {n} seeds is "
                      "this claim's cap; shown as *open*"),
        "undecided_short": "undecided at n = {n}",
        "stable_items": ("the rule gives *{rule}* in {share} of {draws} resamplings of the {n} items "
                         "(stable from 90 %)"),
        "undecided_items": ("undecided at n = {n} items: on the measured items the rule gives *{rule}*, "
                            "but only in {share} of {draws} resamplings of the items (90 % needed); "
                            "shown as *open*"),
        "undecided_short_items": "undecided at n = {n} items",
        "power": "Power",
        "powered": ("a planted effect of the size that would make the claim true is detected by the "
                    "same test in {share} of draws (80 % needed before the test may refute)"),
        "unpowered": ("the rule gives *refuted*, but a planted effect of the size that would make the "
                      "claim true is detected in only {share} of draws (80 % needed); shown as *open*: "
                      "the test could not tell"),
        "unpowered_none": ("the rule gives *refuted*, but this test has no power check yet (a planted "
                           "effect it must detect before it may refute); shown as *open*"),
        "experiments": "Experiments", "no_experiment": "No experiment yet.",
        "ledger_link": "ledger entry", "not_run": "not run",
        "verdicts": {"verified": "verified", "nuanced": "nuanced", "refuted": "refuted",
                     "open": "open"},
        "kinds": {"construction": "Construction (weights set by hand)",
                  "trained": "Trained toy model", "real": "Real pretrained model",
                  "equivalence": "Mathematical fact / equivalence", "literature": "Literature"},
        "section": "source {doc} {part}",
        "fixed": "Rule fixed",
        "fixed_before": "{date}, before its experiment had recorded any number it reads",
        "fixed_after": "{date}, when its experiment had already recorded numbers",
        "revisions": "; {n} earlier {versions}, listed in the details",
        "earlier": "Earlier versions of the rule",
        "earlier_item": "fixed {date}, {known}: {cases}. Its verdict then: {then}; this version on today's numbers: {today}",
        "known": "after its numbers were recorded", "unknown": "before its numbers were recorded",
        "not_recorded": "not recorded", "cannot_apply": "cannot be applied (a number it reads is no longer recorded)",
        "no_case": "no case yet",
        "otherwise": "otherwise {verdict}",
        "reworded": "The rule's words were last revised {date}, its decision unchanged.",
        "date": "{d:%-d %b %Y}, {d:%H:%M} UTC",
    },
    "zh": {
        "title": "论断账本",
        "intro": ("[原文]({sources})提出的每一条论断，判定它的规则，以及这条规则根据本站实验的测量结果"
                  "给出的结论。每条结论都由构建过程根据记录下来的数字算出（tools/verdicts/claims.py）。{history}"),
        "history": ("并不是每条规则都写在实验运行之前：{total} 条规则里，{before} 条在实验记录下它要读的数字之前就已定下；"
                    "{written} 条第一次写下时，实验已经记录了数字（最早的代码片段自己给出结论），此后没有改过；"
                    "{revised} 条在结果已知之后改过。每条论断的卡片都写明它的规则何时定下，并列出早先的各个版本"
                    "（docs/rules_history.yml）。"),
        "kinds_intro": ("*手工构造*（权重由人设定）只能说明某种机制可以成立，不能证实关于模型实际行为的论断。"
                        "训练出来的小模型至少看 8 个随机种子，从不挑最好的一次。它们的每条结论都注明重抽种子后"
                        "还能保持多少（有放回地重抽 1,000 次）；低于 90% 时，构建过程把种子数加倍重新训练，"
                        "直到登记表定下的上限；到了上限仍不稳定的结论显示为*待定*，并注明在多少个种子时“不稳定”。"
                        "要推翻关于模型实际行为的论断，同一检验必须在至少 80% 的抽样里检出人为植入的效应"
                        "（其大小恰好能让论断成立）；否则显示为*待定*：这个检验分辨不出来。"),
        "how_to_read": ("**怎样读一条结论。** “证实”：规则的检验结果与论断所说一致。“部分成立”：论断只有一部分成立，"
                        "或者要加上规则写明的限定才成立（论断中规则没有检验的部分，会让结论最多是部分成立）。"
                        "“推翻”：检验结果与论断相反；若论断说的是模型实际怎样做，同一检验还必须检出人为植入的、"
                        "大小与论断相当的效应。“待定”：检验暂时分辨不出来。一条规则由若干情形组成，按顺序检查："
                        "第一个条件全部满足的情形给出结论；一个也不满足时，由规则最后的“否则”给出。"
                        "每张卡片的“为什么”写明是哪个情形，并把它读取的每个数和这个情形要求的门槛并排列出。"
                        "下表里，“依据”一栏用一句话给出起决定作用的比较；“稳定性”一栏给出把种子（或真实模型的样例）"
                        "重抽之后，规则给出同一结论的比例。稳定性为 100% 的“待定”，是规则自己的“待定”情形在每次重抽里"
                        "都成立：论断之所以待定，是因为规则写明的某个条件（样例太少、数据的两半结果不一致），"
                        "而不是因为种子之间有分歧。"),
        "counts": "共 {total} 条论断：{counts}。",
        "index": "论断", "verdict": "结论", "source": "出处", "rule": "判定规则", "baseline": "对照与校正",
        "because": "依据", "literature": "文献：{papers}", "open_by_rule": "{share}，规则自己的“待定”情形",
        "related": "并列参看",
        "tested_on": "检验它的页面", "details": "论断原文、判定规则与实验",
        "filter": "只看", "all": "全部",
        "stability": "稳定性",
        "stable": "把 {n} 个种子有放回地重抽 {draws} 次，规则在其中 {share} 的重抽里给出“{rule}”（达到 90% 即算稳定）",
        "undecided": ("在 n = {n} 时仍不稳定：按记录下的种子，规则给出“{rule}”，但把种子重抽 {draws} 次，"
                      "只有 {share} 给出同样的结论（需要 90%），而 {n} 已是这条论断的种子上限；因此显示为“待定”"),
        "undecided_short": "n = {n} 时不稳定",
        "stable_items": "把 {n} 个样例有放回地重抽 {draws} 次，规则在其中 {share} 的重抽里给出“{rule}”（达到 90% 即算稳定）",
        "undecided_items": ("在 n = {n} 个样例时仍不稳定：按测量的样例，规则给出“{rule}”，但把样例重抽 {draws} 次，"
                            "只有 {share} 给出同样的结论（需要 90%）；因此显示为“待定”"),
        "undecided_short_items": "{n} 个样例时不稳定",
        "power": "检验功效",
        "powered": "人为植入一个大小恰好能让论断成立的效应，同一检验在 {share} 的抽样里检出了它（须达到 80%，检验才能推翻论断）",
        "unpowered": "规则给出“推翻”，但人为植入一个大小恰好能让论断成立的效应，同一检验只在 {share} 的抽样里检出它（需要 80%）；因此显示为“待定”：这个检验分辨不出来",
        "unpowered_none": "规则给出“推翻”，但这个检验还没有功效检查（推翻之前必须能检出的人为植入效应）；因此显示为“待定”",
        "experiments": "实验", "no_experiment": "尚无实验。",
        "ledger_link": "账本条目", "not_run": "未运行",
        "verdicts": {"verified": "证实", "nuanced": "部分成立", "refuted": "推翻", "open": "待定"},
        "kinds": {"construction": "手工构造（权重由人设定）", "trained": "训练出来的小模型",
                  "real": "真实的预训练模型", "equivalence": "数学事实 / 等价性检验",
                  "literature": "文献"},
        "section": "原文 {doc} {part}",
        "fixed": "规则定下",
        "fixed_before": "{date}，当时实验还没有记录下它要读的任何数字",
        "fixed_after": "{date}，当时实验已经记录下数字",
        "revisions": "；早先还有 {n} 个版本，列在详情里",
        "earlier": "规则的早先版本",
        "earlier_item": "{date}定下，{known}：{cases}。当时的结论：{then}；用今天的数字算，这一版给出：{today}",
        "known": "当时数字已经记录", "unknown": "当时数字尚未记录",
        "not_recorded": "未记录", "cannot_apply": "无法计算（它读取的数字已不再记录）",
        "no_case": "还没有任何情形",
        "otherwise": "否则{verdict}",
        "reworded": "规则的措辞最近一次修改于 {date}，判定本身不变。",
        "date": "{d.year} 年 {d.month} 月 {d.day} 日 {d:%H:%M}（UTC）",
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
    page = Path(__file__).resolve().parents[2] / "docs" / lang / "references.md"
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    return {key: label for label, key in re.findall(r"^## (.+?) \{#([\w-]+)\}\s*$", text, re.M)}


def stability(assessment, lang: str, short: bool = False) -> str:
    """How often the verdict survives resampling the seeds (or a real model's items), in
    words ('' when nothing was resampled). The share is rounded down, so a verdict below
    90 % never reads as 90 %."""
    if assessment is None or assessment.stability is None:
        return ""
    ui = UI[lang]
    by_items = bool(getattr(assessment, "items", None)) and not assessment.seeds
    n = assessment.n_items if by_items else assessment.n_seeds
    share = f"{math.floor(100 * assessment.stability + 1e-9)}" + (" %" if lang == "en" else "%")
    if short:
        return (ui["undecided_short_items" if by_items else "undecided_short"].format(n=n)
                if assessment.undecided else share)
    draws = f"{registry.RESAMPLINGS:,}"   # 1,000 in both languages, as the pages write it
    template = ui["undecided" if assessment.undecided else "stable"]
    if by_items:
        template = ui["undecided_items" if assessment.undecided else "stable_items"]
    return template.format(rule=ui["verdicts"][assessment.rule_verdict], share=share, draws=draws, n=n)


def power(assessment, lang: str) -> str:
    """What the claim's power check (G1) detected, in words ('' when it has none and the rule
    did not refute)."""
    if assessment is None or (assessment.power is None and not assessment.unpowered):
        return ""
    ui = UI[lang]
    if assessment.power is None:
        return ui["unpowered_none"]
    share = f"{math.floor(100 * assessment.power + 1e-9)}" + (" %" if lang == "en" else "%")
    return ui["unpowered" if assessment.unpowered else "powered"].format(share=share)


def notes(assessment, lang: str) -> list[str]:
    """The stability and power lines under a claim, as Markdown paragraphs."""
    colon = "：" if lang == "zh" else ":"
    ui = UI[lang]
    return [f"**{ui[name]}{colon}** {text}" for name, text in
            (("stability", stability(assessment, lang)), ("power", power(assessment, lang))) if text]


def verdict_badge(verdict: str | None, lang: str) -> str:
    ui = UI[lang]
    label = ui["verdicts"][verdict] if verdict else ui["not_run"]
    return f'<span class="verdict verdict--{verdict or "undecided"}">{label}</span>'


def source_link(anchor: str, lang: str, sources_href: str | None) -> str:
    if anchor not in SECTIONS:
        raise ValueError(f"unknown source section '{anchor}' (tools/verdicts/ledger.py SECTIONS)")
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


def _tested_on(claim: registry.Claim, where: dict[str, tuple[str, str]], lang: str = "en") -> str:
    """The pages whose experiments test ``claim``, as links (the overview's column)."""
    pages = []
    for experiment in claim.experiments:
        if experiment.snippet in where and where[experiment.snippet] not in pages:
            pages.append(where[experiment.snippet])
    return ("；" if lang == "zh" else "; ").join(f"[{title}]({path})" for path, title in pages) or "—"


def _sources(claim: registry.Claim, lang: str, sources_href: str | None) -> str:
    """A claim's source sections, short, grouped by text: "A §1, §2; B §2"."""
    by_doc: dict[str, list[str]] = {}
    for anchor in claim.source:
        source_link(anchor, lang, None)   # an unknown section fails here
        part = SECTIONS[anchor][0 if lang == "en" else 1]
        by_doc.setdefault(anchor[0].upper(), []).append(
            f"[{part}]({sources_href}#{anchor})" if sources_href else part)
    comma, semicolon = ("、", "；") if lang == "zh" else (", ", "; ")
    return semicolon.join(f"{doc} {comma.join(parts)}" for doc, parts in by_doc.items())


def _papers(claim: registry.Claim, lang: str, references_href: str | None) -> str:
    """The papers a claim is decided from, as links to the references page ('' if none)."""
    papers = []
    for experiment in claim.experiments:
        if experiment.kind == "literature":
            label = _paper(experiment.reference, lang)
            papers.append(f"[{label}]({references_href}#{experiment.reference})" if references_href else label)
    return ("；" if lang == "zh" else "; ").join(papers)


def index_table(lang: str, claims: dict[str, registry.Claim], verdicts: dict[str, str | None],
                where: dict[str, tuple[str, str]], sources_href: str | None,
                references_href: str | None, assessments: dict, becauses_: dict[str, str]) -> list[str]:
    """The ledger's overview, one row per claim: claim, verdict, because (one clause), source
    sections, where it is tested (pages, or the literature), stability. An HTML table whose
    cells carry their column's name (``data-label``): on a phone each row folds into a block
    that names its cells (docs/assets/explainer.css)."""
    ui = UI[lang]
    columns = [ui["index"], ui["verdict"], ui["because"], ui["source"], ui["tested_on"], ui["stability"]]
    lines = ['<div class="ledger-index" markdown>', "", "<table markdown>",
             "<thead><tr>" + "".join(f"<th>{name}</th>" for name in columns) + "</tr></thead>",
             "<tbody markdown>"]
    for claim_id, claim in claims.items():
        assessment = assessments.get(claim_id)
        papers = _papers(claim, lang, references_href)
        tested = [part for part in (_tested_on(claim, where, lang).strip("—"),
                                    ui["literature"].format(papers=papers) if papers else "") if part]
        tested_text = ("；" if lang == "zh" else "; ").join(tested) or (
            ui["no_experiment"].rstrip(".。") if not claim.experiments else "—")
        share = stability(assessment, lang, short=True)
        if share and assessment.rule_verdict == "open" and not assessment.undecided:
            share = ui["open_by_rule"].format(share=share)
        cells = [f"[{claim_id}](#{claim_id}) {claim.title[lang]}", verdict_badge(verdicts[claim_id], lang),
                 becauses_.get(claim_id, "—"), _sources(claim, lang, sources_href), tested_text, share or "—"]
        lines.append("<tr markdown>" + "".join(f'<td data-label="{name}" markdown>{cell}</td>'
                                               for name, cell in zip(columns, cells)) + "</tr>")
    return lines + ["</tbody>", "</table>", "", "</div>", ""]


def _filter(lang: str, counts: dict[str, int], total: int) -> list[str]:
    """Buttons that show the claims of one verdict only (docs/assets/ledger.js runs them;
    without JavaScript they stay hidden and every claim shows)."""
    ui = UI[lang]
    count = "{label}（{n}）" if lang == "zh" else "{label} ({n})"
    buttons = [f'<button type="button" class="md-button" data-verdict="" aria-pressed="true">'
               f'{count.format(label=ui["all"], n=total)}</button>']
    buttons += [f'<button type="button" class="md-button" data-verdict="{v}" aria-pressed="false">'
                f'{count.format(label=ui["verdicts"][v], n=counts[v])}</button>'
                for v in registry.VERDICTS if counts[v]]
    return [f'<div class="ledger-filter" role="group" aria-label="{ui["filter"]}" hidden>'
            f'<span>{ui["filter"]}{"：" if lang == "zh" else ":"}</span> ' + " ".join(buttons)
            + "</div>", ""]


def _date(iso: str, lang: str) -> str:
    moment = dt.datetime.fromisoformat(iso).astimezone(dt.timezone.utc)
    return UI[lang]["date"].format(d=moment)


def _rule_cases(version: dict, lang: str) -> str:
    ui = UI[lang]
    colon = "：" if lang == "zh" else ": "
    cases = [f"{ui['verdicts'][v]}{colon}`{c}`" for case in version.get("cases") or [] for v, c in case.items()]
    if not cases:
        return ui["no_case"]
    otherwise = ui["otherwise"].format(verdict=ui["verdicts"].get(version.get("otherwise"), version.get("otherwise")))
    return ("；" if lang == "zh" else "; ").join(cases + [otherwise])


def rule_history(claim: registry.Claim, versions: list[dict], numbers: dict[str, float],
                 lang: str) -> tuple[str, list[str]]:
    """When ``claim``'s rule was fixed (one line for the card) and its earlier deciding versions
    with their verdicts (lines for the details), from docs/rules_history.yml."""
    ui = UI[lang]
    colon = "：" if lang == "zh" else ":"
    deciding = rules_history.decisions(versions)
    if not deciding:
        return "", []
    current = deciding[-1]
    fixed = ui["fixed_after" if current["numbers_known"] else "fixed_before"].format(
        date=_date(current["date"], lang))
    earlier = deciding[:-1]
    line = (f"**{ui['fixed']}{colon}** {fixed}" + (ui["revisions"].format(n=len(earlier), versions="version" if len(earlier) == 1 else "versions")
               if earlier else "")
            + ("。" if lang == "zh" else "."))
    details = []
    if earlier:
        details += [f"**{ui['earlier']}{colon}**", ""]
        for version in reversed(earlier):
            today = rules_history.verdict_today(version, claim, numbers) if numbers else None
            then = version.get("verdict")
            details.append("- " + ui["earlier_item"].format(
                date=_date(version["date"], lang), known=ui["known" if version["numbers_known"] else "unknown"],
                cases=_rule_cases(version, lang),
                then=verdict_badge(then, lang) if then else ui["not_recorded"],
                today=verdict_badge(today, lang) if today else ui["cannot_apply"]))
        details.append("")
    if versions[-1] is not current:
        details += [ui["reworded"].format(date=_date(versions[-1]["date"], lang)), ""]
    return line, details


def history_sentence(lang: str, history: dict[str, list[dict]] | None, claims) -> str:
    """The introduction's counts of rules fixed before their run and revised after results."""
    if not history:
        return ""
    counts = rules_history.counts({c: history.get(c, []) for c in claims})
    decided = len(counts.fixed_before) + len(counts.written_after) + len(counts.revised_after)
    sentence = UI[lang]["history"].format(total=decided, before=len(counts.fixed_before),
                                          written=len(counts.written_after), revised=len(counts.revised_after))
    return sentence


def page(lang: str, claims: dict[str, registry.Claim], verdicts: dict[str, str | None],
         results: dict, where: dict[str, tuple[str, str]], sources_href: str | None,
         references_href: str | None, assessments: dict | None = None,
         reasons: dict[str, str] | None = None, script_href: str = "",
         history: dict[str, list[dict]] | None = None, becauses_: dict[str, str] | None = None) -> str:
    """The ledger in Markdown. ``where`` maps a snippet to (page path, page title);
    ``assessments`` (tools.verdicts.claims.assess) add each trained verdict's stability, ``reasons``
    (``reasons()``) the sentences that say why, ``becauses_`` (``becauses()``) the table's one
    clause. Compact: each claim shows its verdict and why; the claim's text, rule and
    experiments are folded under it."""
    assessments, reasons = assessments or {}, reasons or {}
    colon = "：" if lang == "zh" else ":"
    ui = UI[lang]
    counts = {v: sum(1 for x in verdicts.values() if x == v) for v in registry.VERDICTS}
    count_text = ("、" if lang == "zh" else ", ").join(
        f"{verdict_badge(v, lang)} {counts[v]}" for v in registry.VERDICTS)
    numbers = registry.measurements(results, claims) if results else {}
    intro = ui["intro"].format(sources=sources_href or "#", history=history_sentence(lang, history, claims))
    lines = [f"# {ui['title']}", "", intro, "", ui["how_to_read"], "",
             ui["kinds_intro"], "", ui["counts"].format(total=len(claims), counts=count_text), "",
             *_filter(lang, counts, len(claims)),
             *index_table(lang, claims, verdicts, where, sources_href, references_href, assessments,
                          becauses_ or {})]
    for claim_id, claim in claims.items():
        sources = "、".join if lang == "zh" else ", ".join
        folded = [claim.text[lang], "",
                  *(line for note in notes(assessments.get(claim_id), lang) for line in (note, "")),
                  f"**{ui['source']}{colon}** " + sources(source_link(a, lang, sources_href)
                                                          for a in claim.source), "",
                  f"**{ui['rule']}{colon}** {claim.rule_text[lang]}", "",
                  *rule_history(claim, (history or {}).get(claim_id, []), numbers, lang)[1],
                  *([f"**{ui['baseline']}{colon}** {claim.baseline[lang]}", ""] if claim.baseline else []),
                  *([f"**{ui['related']}{colon}** " + ("；" if lang == "zh" else "; ").join(
                      f"[{other} · {claims[other].title[lang]}](#{other}) {verdict_badge(verdicts[other], lang)}"
                      for other in claim.related), ""] if claim.related else []),
                  f"**{ui['experiments']}{colon}**", ""]
        if not claim.experiments:
            folded += [f"- {ui['no_experiment']}"]
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
            dash = "——" if lang == "zh" else " — "
            folded.append(f"- {kind} · {title}" + (f"{dash}{measured}" if measured else ""))
        why = (f'  \n<span class="claim-why">{WHY[lang]["label"]}{colon}</span> {reasons[claim_id]}'
               if claim_id in reasons else "")
        lines += [f'<div class="claim-card" data-verdict="{verdicts[claim_id] or "undecided"}" markdown>',
                  "", f"## {claim_id} · {claim.title[lang]} {{#{claim_id}}}", "",
                  f"**{ui['verdict']}{colon}** {verdict_badge(verdicts[claim_id], lang)}{why}", "",
                  *([fixed, ""] if (fixed := rule_history(claim, (history or {}).get(claim_id, []),
                                                          numbers, lang)[0]) else []),
                  f'??? note "{ui["details"]}"', ""]
        lines += [f"    {line}" if line else "" for line in folded]
        lines += ["", "</div>", ""]
    if script_href:
        lines += [f'<script src="{script_href}"></script>', ""]
    return "\n".join(lines) + "\n"


def badges(snippet: str, lang: str, claims: dict[str, registry.Claim],
           verdicts: dict[str, str | None], ledger_href: str, assessments: dict | None = None,
           reasons: dict[str, str] | None = None,
           elsewhere: dict[str, tuple[str, str]] | None = None,
           other_pages: dict[str, list[tuple[str, str]]] | None = None) -> str:
    """The claims a snippet's experiment bears on: each with its one verdict, linked to the
    ledger. A claim in ``elsewhere`` (claim -> (href, title) of the page whose experiment
    decides it) is shown as a link to that page, without numbers this page does not show;
    one in ``other_pages`` (claim -> [(href, title)] of other pages whose numbers its rule
    reads) keeps its card, and its why points to those pages and the ledger."""
    rows = []
    for claim_id, claim in claims.items():
        if claim_id in (elsewhere or {}):
            rows.append(decided_elsewhere(claim_id, lang, claims, verdicts, ledger_href,
                                          *elsewhere[claim_id]))
        elif any(e.snippet == snippet for e in claim.experiments):
            rows.append(claim_badge(claim_id, lang, claims, verdicts, ledger_href, assessments,
                                    reasons, (other_pages or {}).get(claim_id)))
    return "\n".join(rows)


DECIDED_ELSEWHERE = {
    "en": "decided on {kind}: [{title}]({href})",
    "zh": "在{kind}上判定：[{title}]({href})",
}
DECIDING_KIND = {
    "en": {"real": "the real model", "trained": "trained models", "equivalence": "the maths",
           "construction": "a construction"},
    "zh": {"real": "真实模型", "trained": "训练出来的模型", "equivalence": "数学推导",
           "construction": "手工搭建的例子"},
}


def deciding_experiment(claim: registry.Claim) -> registry.Experiment | None:
    """The experiment whose page decides the claim: its first that is not a construction."""
    return next((e for e in claim.experiments if e.snippet and e.kind != "construction"), None)


def decided_elsewhere(claim_id: str, lang: str, claims: dict[str, registry.Claim],
                      verdicts: dict[str, str | None], ledger_href: str, href: str, title: str) -> str:
    """A claim a page illustrates but does not decide: its title, its verdict and a link to the
    page whose experiment decides it — no numbers from that page."""
    claim = claims[claim_id]
    kind = DECIDING_KIND[lang][deciding_experiment(claim).kind]
    dash = "——" if lang == "zh" else " — "
    return (f'<div class="claim-badge claim-elsewhere" markdown>\n\n'
            f'[{claim_id} · {claim.title[lang]}]({ledger_href}#{claim_id}){dash}'
            f'{DECIDED_ELSEWHERE[lang].format(kind=kind, title=title, href=href)} '
            f'{verdict_badge(verdicts.get(claim_id), lang)}\n\n</div>\n')


LITERATURE_HEADER = {"en": ("Paper", "Model", "Value"), "zh": ("论文", "模型", "数值")}


def literature_table(claim: registry.Claim, lang: str, references_href: str | None) -> str:
    """The literature numbers a claim's rule reads, as a Markdown table: paper (linked to the
    references page), what the number is (its label, or its key), and the number."""
    labels = reference_labels(lang)
    rows = [f"| {' | '.join(LITERATURE_HEADER[lang])} |", "|---|---|---:|"]
    for experiment in claim.experiments:
        if experiment.kind != "literature":
            continue
        paper = labels.get(experiment.reference, experiment.reference)
        if references_href:
            paper = f"[{paper}]({references_href}#{experiment.reference})"
        for key, value in experiment.numbers.items():
            name = experiment.labels.get(key, key.replace("_", " "))
            rows.append(f"| {paper} | {name} | {value:g} |")
    if len(rows) == 2:
        raise ValueError(f"{claim.id} lists no literature numbers")
    return "\n".join(rows) + "\n"


ALSO_READS = {
    "en": "the rule also reads the experiment on {pages}; its reasons, with the numbers of "
          "each page, are in [the ledger]({href}).",
    "zh": "规则还读{pages}一页的实验；它的理由连同各页的数字写在[论断总账]({href})里。",
}
PAGE_LIST_SEP = {"en": " and ", "zh": "和"}


def rule_snippets(claim: registry.Claim) -> set[str]:
    """The snippets whose recorded numbers the claim's rule reads (papers' numbers aside)."""
    snippets = {e.snippet for e in claim.experiments if e.snippet}
    return {name.rsplit(".", 1)[0] for name in claim.names()} & snippets


def claim_badge(claim_id: str, lang: str, claims: dict[str, registry.Claim],
                verdicts: dict[str, str | None], ledger_href: str, assessments: dict | None = None,
                reasons: dict[str, str] | None = None,
                other_pages: list[tuple[str, str]] | None = None) -> str:
    """A claim's card: title, verdict, the claim, and why. Where the rule also reads numbers
    another page shows (``other_pages``: (href, title) of each), the card points there and to
    the ledger instead of quoting numbers this page does not show."""
    claim = claims[claim_id]
    colon = "：" if lang == "zh" else ":"
    note = "".join(f"\n\n{line}" for line in notes((assessments or {}).get(claim_id), lang))
    why = (reasons or {}).get(claim_id)
    if why and other_pages:
        pages = PAGE_LIST_SEP[lang].join(
            f"[{title}]({href})" if lang == "en" else f"“[{title}]({href})”" for href, title in other_pages)
        why = _capital(ALSO_READS[lang].format(pages=pages, href=f"{ledger_href}#{claim_id}"), lang)
    why = f'\n\n<span class="claim-why">{WHY[lang]["label"]}{colon}</span> {why}' if why else ""
    return (f'<div class="claim-badge" markdown>\n\n'
            f'[{claim_id} · {claim.title[lang]}]({ledger_href}#{claim_id}) '
            f'{verdict_badge(verdicts.get(claim_id), lang)}\n\n{claim.text[lang]}{why}{note}\n\n</div>\n')


# --- Why: the verdict in sentences, from the rule's evaluation (claims.explain) -------------
#
# A card's "why" names the case of the rule that gave the verdict, each number it read beside
# the threshold it was held to, and the cases checked before it (each named once: "the second
# *nuanced* case" when a rule has two); the ledger's table gives the deciding comparison in
# one clause ("because"). Neither sentence wraps a name in brackets: the names (a number's
# "about") may hold brackets of their own, and brackets in brackets do not read.

WHY = {
    "en": {
        "label": "Why",
        "case": "the *{verdict}* case", "nth_case": "the {nth} *{verdict}* case",
        "nth": ("first", "second", "third", "fourth", "fifth", "sixth"),
        "held": "{case} of the rule holds: {checks}.",
        "before": "Checked before it, {case} does not hold: {checks}.",
        "none": "No case of the rule holds, so the rule's default applies: *{verdict}*.",
        "fails": "{case} does not hold: {checks}.",
        "nor": "Nor does {case} hold: {checks}.",
        "no_case": "No experiment decides this claim yet: its rule has no case and gives *{verdict}*.",
        "undecided": "on the recorded seeds, ",
        "unpowered": "on the numbers alone, ",
        "check": "{left} is {value}, where the case needs {need}",
        "flag": "{left} — {value}",
        "flag_fails": "{left} — {value}, where the case needs {need}",
        "yes": "yes", "no": "no",
        "need": {">=": "at least {t}", ">": "more than {t}", "<=": "at most {t}", "<": "less than {t}",
                 "==": "exactly {t}", "!=": "anything but {t}"},
        "named": "{name}, which is {value}",
        "need_named": {"==": "the same as {t}", "!=": "something other than {t}"},
        "checks": "; ", "or": "; or ",
        # the table's one clause
        "short": "{left} is {value} (needs {need})", "short_flag": "{left} — {value}",
        "short_by": "{left} is {value} (needs {needs})", "short_flag_by": "{left} — {value} (needs {needs})",
        "short_and": " and ", "short_or": " or ",
        "short_need_for": "{need} for *{verdict}*", "short_needs_sep": ", ", "short_parts": "; ",
        "short_more": ("{check}, and 1 more condition met", "{check}, and {n} more conditions met"),
        "short_none": "no case of the rule holds",
        "short_no_case": "no experiment yet",
        "short_undecided": ("the rule gives *{rule}*, but in only {share} of resamplings of the "
                            "{what} (90 % needed)"),
        "seeds": "seeds", "items": "items",
        "short_unpowered": ("the rule gives *refuted*, but a planted effect of the claim's size "
                            "is detected in only {share} of draws (80 % needed)"),
        "short_unpowered_none": "the rule gives *refuted*, but its test has no power check yet",
        # a rule's arithmetic in words
        "within": "the number of the rule's {n} values between {low} and {high}",
        "max": ("the larger of {args}", "the largest of {args}"),
        "min": ("the smaller of {args}", "the smallest of {args}"),
        "args": (", ", " and "),
        "sum": "the sum of {a} and {b}",
        "gap": "the gap between {a} and {b}", "distance": "the distance of {a} from {b}",
        "size": "the size of {a}",
        "times": {0.25: "a quarter of {x}", 0.5: "half of {x}", 0.75: "three quarters of {x}",
                  2: "twice {x}"},
        "over": {2: "half of {x}", 3: "a third of {x}", 4: "a quarter of {x}", 8: "an eighth of {x}"},
    },
    "zh": {
        "label": "为什么",
        "case": "“{verdict}”情形", "nth_case": "第{nth}个“{verdict}”情形",
        "nth": ("一", "二", "三", "四", "五", "六"),
        "held": "规则的{case}成立：{checks}。",
        "before": "在它之前检查的{case}不成立：{checks}。",
        "none": "规则里没有哪种情形成立，按这条规则的约定，归为“{verdict}”。",
        "fails": "{case}不成立：{checks}。",
        "nor": "{case}也不成立：{checks}。",
        "no_case": "还没有实验判定这条论断：它的规则还没有任何情形，结论为“{verdict}”。",
        "undecided": "按记录下的种子，",
        "unpowered": "按记录下的数字，单看规则，",
        "check": "{left}为{value}，这一情形要求{need}",
        "flag": "{left}——{value}",
        "flag_fails": "{left}——{value}，而这一情形要求{need}",
        "yes": "是", "no": "否",
        "need": {">=": "至少{t}", ">": "大于{t}", "<=": "至多{t}", "<": "小于{t}",
                 "==": "等于{t}", "!=": "不等于{t}"},
        "named": "{name}，即{value}",
        "need_named": {},
        # checks within a case are set off by "；" (a name may hold a comma), cases by "。"
        "checks": "；", "or": "；或者",
        "short": "{left}为{value}（要求{need}）", "short_flag": "{left}——{value}",
        "short_by": "{left}为{value}（{needs}）", "short_flag_by": "{left}——{value}（{needs}）",
        "short_and": "，且", "short_or": "，或",
        "short_need_for": "“{verdict}”要求{need}", "short_needs_sep": "，", "short_parts": "；",
        "short_more": ("{check}，另有 {n} 个条件也满足", "{check}，另有 {n} 个条件也满足"),
        "short_none": "规则里没有哪种情形成立，按规则的约定归为这一结论",
        "short_no_case": "尚无实验",
        "short_undecided": "规则给出“{rule}”，但把{what}重抽后只有 {share} 给出同样的结论（需要 90%）",
        "seeds": "种子", "items": "样例",
        "short_unpowered": "规则给出“推翻”，但人为植入论断大小的效应，同一检验只在 {share} 的抽样里检出它（需要 80%）",
        "short_unpowered_none": "规则给出“推翻”，但这个检验还没有功效检查",
        "within": "规则读取的 {n} 个数中落在 {low} 到 {high} 之间的个数",
        "max": ("{args}中的较大者", "{args}中的最大者"),
        "min": ("{args}中的较小者", "{args}中的最小者"),
        "args": ("、", "与"),
        "sum": "{a}与{b}之和",
        "gap": "{a}与{b}之差的绝对值", "distance": "{a}与{b}之差的绝对值",
        "size": "{a}的绝对值",
        "times": {0.25: "{x}的四分之一", 0.5: "{x}的一半", 0.75: "{x}的四分之三", 2: "{x}的两倍"},
        "over": {2: "{x}的一半", 3: "{x}的三分之一", 4: "{x}的四分之一", 8: "{x}的八分之一"},
    },
}
SYMBOLS = {"<": "<", "<=": "≤", ">": ">", ">=": "≥", "==": "=", "!=": "≠"}
ARITHMETIC = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "÷"}
# A number recorded as yes / no: its name ends in "(1 yes, 0 no)" or "（1 是，0 否）", or says
# "（1 / 0）"; the sentence gives yes or no, not 1 or 0.
FLAG = re.compile(r"\s*[（(]\s*1 (?:yes|是)\s*[，,]\s*0 (?:no|否)\s*[）)]|\s*[（(]1 / 0[）)]")
HAN = re.compile(r"[\u3400-\u9fff]")
LATIN = re.compile(r"[A-Za-z0-9%|)\]ₖ²°ᴼ√−+×÷≥≤=<>*_.$`-]")


def _fill(template: str, lang: str, **values) -> str:
    """``template.format(**values)``; in Chinese with a space where a filled-in value meets
    Chinese on one side and a Latin letter or a number on the other ("头数为 2", "要求至少 0.25")."""
    if lang != "zh":
        return template.format(**values)
    text = ""
    for literal, field, _, _ in string.Formatter().parse(template):
        for part in (literal, None if field is None else str(values[field])):
            if part:
                gap = text and ((HAN.match(text[-1]) and LATIN.match(part[0]))
                                or (LATIN.match(text[-1]) and HAN.match(part[0])))
                text += (" " if gap else "") + part
    return text


def _number_like(value: float, like: str, exact: bool = False) -> str:
    """``value`` written the way the number it is compared with is written (``like``: a
    recorded text such as "65 %", "0.12" or "3.2e-07"). A threshold (``exact``) keeps the
    digits that rounding would lose: 7.5 is not shown as 8, 0.0001 not as 0 %."""
    if re.search(r"\de[-+]", like) and not like.endswith("%"):
        return "0" if value == 0 else f"{value:.1e}".replace(".0e", "e")
    share = 100 * value if like.endswith("%") else value
    digits = re.search(r"\.(\d+)", like)
    places = len(digits.group(1)) if digits else 0
    text = f"{share:.{places}f}"
    if exact and not math.isclose(float(text), share, rel_tol=1e-9, abs_tol=1e-12):
        text = next((f"{share:.{more}f}" for more in range(places + 1, places + 4)
                     if math.isclose(float(f"{share:.{more}f}"), share, rel_tol=1e-9, abs_tol=1e-12)),
                    f"{share:.4g}")
    if like.endswith("%"):
        return text + (" %" if like.endswith(" %") else "%")
    return text


# A paper's own numbers (``reference.key`` in a rule, docs/claims.yml `numbers`), in words.
PAPER_NUMBERS = {
    "adjacent_heads_shown": ("adjacent-word heads shown by {paper}", "{paper}所示的相邻词头"),
    "verb_object_heads_shown": ("verb–object heads shown by {paper}", "{paper}所示的动词—宾语头"),
    "coreference_heads_shown": ("pronoun–entity heads shown by {paper}", "{paper}所示的代词—实体头"),
    "word_sense_heads_shown": ("word-sense heads shown by {paper}", "{paper}所示的消歧头"),
    # the share of all heads removed with no noticeable loss
    "prunable_share_wmt": ("the prunable share {paper} report for WMT", "{paper}报告的 WMT 模型可剪比例"),
    "prunable_share_bert": ("the prunable share {paper} report for BERT", "{paper}报告的 BERT 可剪比例"),
}


def _paper(reference: str, lang: str) -> str:
    """A reference's short label, first author only: "Clark et al. (2019)", "Clark 等（2019）"."""
    label = reference_labels(lang).get(reference, reference)
    authors, year = re.match(r"(.*?)\s*([（(]\d{4}[）)])$", label).groups() if re.search(
        r"[（(]\d{4}[）)]$", label) else (label, "")
    first = re.split(r"、|，|,| 和 | and ", authors)[0].strip()
    if first == authors.strip() or not year:
        return label
    return f"{first} 等{year}" if lang == "zh" else f"{first} et al. {year}"


def _about(name: str, results: dict, lang: str) -> tuple[str, str]:
    """What a ``snippet.key`` of a rule is, in words, and its recorded text."""
    source, _, key = name.rpartition(".")  # many_heads.pruning . prunable_share
    entry = results.get(source, {}).get("numbers", {}).get(key)
    if entry is None:  # a paper's own number: named by what it counts and the paper
        if key in PAPER_NUMBERS:
            return PAPER_NUMBERS[key][0 if lang == "en" else 1].format(paper=_paper(source, lang)), ""
        return f"{key.replace('_', ' ')} ({source})", ""
    return entry.get("about", {}).get(lang) or key.replace("_", " "), numbers_table.shown(entry, lang)


def _expression(node, results: dict, lang: str) -> str:
    """A rule's arithmetic in words: names by what they are; "three quarters of", "the larger
    of", "the gap between"; otherwise × − + ÷."""
    why = WHY[lang]
    if isinstance(node, ast.Attribute):
        return _about(registry._dotted(node), results, lang)[0]
    if isinstance(node, ast.Constant):
        return f"{node.value:g}"
    if isinstance(node, ast.UnaryOp):
        return "−" + _expression(node.operand, results, lang)
    if isinstance(node, ast.BinOp):
        constant = next((part.value for part in (node.left, node.right)
                         if isinstance(part, ast.Constant)), None)
        other = node.right if isinstance(node.left, ast.Constant) else node.left
        if (isinstance(node.op, ast.Mult) and constant in why["times"]
                and not isinstance(other, ast.Constant)):
            return _fill(why["times"][constant], lang, x=_expression(other, results, lang))
        if (isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant)
                and node.right.value in why["over"] and not isinstance(node.left, ast.Constant)):
            return _fill(why["over"][node.right.value], lang, x=_expression(node.left, results, lang))

        if (isinstance(node.op, ast.Add) and not isinstance(node.left, (ast.Constant, ast.BinOp))
                and not isinstance(node.right, (ast.Constant, ast.BinOp))):   # two counts added up
            return _fill(why["sum"], lang, a=_expression(node.left, results, lang),
                         b=_expression(node.right, results, lang))

        def side(part, right: bool):
            text = _expression(part, results, lang)
            inner, outer = _precedence(part), _precedence(node)
            return f"({text})" if inner < outer or (right and inner == outer) else text
        return f"{side(node.left, False)} {ARITHMETIC[type(node.op)]} {side(node.right, True)}"
    if isinstance(node, ast.Call) and node.func.id == "within":
        low, high, *values = (_expression(a, results, lang) for a in node.args)
        return _fill(why["within"], lang, n=len(values), low=low, high=high)
    if isinstance(node, ast.Call) and node.func.id in ("max", "min"):
        args = [_expression(a, results, lang) for a in node.args]
        # the same paper's numbers ("Michel 等（2019）报告的 WMT 模型…", "… 报告的 BERT …"): the
        # shared opening once ("…报告的 WMT 模型可剪比例与 BERT 可剪比例中的较大者")
        shared = os.path.commonprefix(args) if len(args) > 1 else ""
        shared = shared[:shared.rfind(" ") + 1] if lang == "zh" and "报告的" in shared else ""
        args = [a[len(shared):] for a in args]
        comma, last = why["args"]
        joined = args[0] if len(args) == 1 else _fill("{a}" + last + "{b}", lang, a=comma.join(args[:-1]), b=args[-1])
        return shared + _fill(why[node.func.id][0 if len(args) == 2 else 1], lang, args=joined)
    if isinstance(node, ast.Call) and node.func.id == "abs":
        inside = node.args[0]
        if isinstance(inside, ast.BinOp) and isinstance(inside.op, (ast.Sub, ast.Add)):
            a = _expression(inside.left, results, lang)
            if isinstance(inside.right, ast.Constant):   # |x + 0.5|: the distance of x from −0.5
                b = f"{-inside.right.value if isinstance(inside.op, ast.Add) else inside.right.value:g}"
                return _fill(why["distance"], lang, a=a, b=b.replace("-", "−"))
            if isinstance(inside.op, ast.Sub):
                return _fill(why["gap"], lang, a=a, b=_expression(inside.right, results, lang))
        return _fill(why["size"], lang, a=_expression(inside, results, lang))
    return ast.unparse(node)


def _precedence(node) -> int:
    if not isinstance(node, ast.BinOp):
        return 3  # a name, a number, a call: never needs brackets
    return 1 if isinstance(node.op, (ast.Add, ast.Sub)) else 2


def _plain(value: float) -> str:
    """A computed threshold that no recorded number shows how to round: at most four
    significant digits (1 ÷ 3 = 0.333, not 0.333333)."""
    text = f"{value:g}"
    digits = text.lstrip("-").replace(".", "").lstrip("0")
    return f"{value:.3g}" if "e" not in text and abs(value) < 1 and len(digits) > 4 else text


def _recorded_text(node, results: dict, lang: str) -> str:
    """How the first recorded number in ``node`` is written ('' if it reads none)."""
    for part in ast.walk(node):
        if isinstance(part, ast.Attribute):
            text = _about(registry._dotted(part), results, lang)[1]
            if text:
                return text
    return ""


def _sides(check: registry.Check, results: dict, lang: str) -> tuple[str, str, str, str]:
    """A comparison's two sides in words: (what the left is, its value, what the threshold is
    or '' for a bare number, the threshold's value). The threshold is written like the
    number it bounds (a percentage where that is one), with the digits it needs."""
    left_like = _recorded_text(check.left, results, lang)
    right_like = _recorded_text(check.right, results, lang)
    if isinstance(check.left, ast.Attribute):
        left, left_text = _about(registry._dotted(check.left), results, lang)
        left_text = left_text or _plain(check.left_value)
    else:
        left = _expression(check.left, results, lang)
        like = left_like or right_like
        left_text = _number_like(check.left_value, like) if like else _plain(check.left_value)
    if isinstance(check.right, ast.Attribute):
        right, right_text = _about(registry._dotted(check.right), results, lang)
        right_text = right_text or _plain(check.right_value)
    elif isinstance(check.right, ast.Constant):
        right = ""
        right_text = (_number_like(check.right_value, left_like, exact=True) if left_like.endswith("%")
                      else f"{check.right_value:g}")
    else:
        right = _expression(check.right, results, lang)
        like = left_like if left_like.endswith("%") else (right_like or left_like)
        right_text = _number_like(check.right_value, like, exact=True) if like else _plain(check.right_value)
    return left, left_text, right, right_text


def _flag(label: str) -> str | None:
    """A yes / no number's name without its "(1 yes, 0 no)" (None when it is not one)."""
    return FLAG.sub("", label) if FLAG.search(label) else None


def _check(check: registry.Check, results: dict, lang: str, short: bool = False,
           need_only: bool = False, needs: str = "") -> str:
    """One comparison: the number by what it is, its value, and the threshold the case needs
    (``short``: the threshold's value only, for the table's one clause; ``need_only``: just
    what is needed, "at least 6"; ``needs``: what several verdicts needed of this number)."""
    why = WHY[lang]
    left, value, right, threshold = _sides(check, results, lang)
    flag = _flag(left) if isinstance(check.right, ast.Constant) else None
    if flag is not None:   # yes / no: which answer the case needs
        answer = lambda x: why["yes"] if x else why["no"]   # noqa: E731
        needed = answer(registry._COMPARE[_OPERATOR_TYPES[check.op]](1, check.right_value))
        if need_only:
            return needed
        template = why["short_flag_by" if needs else "short_flag" if short
                       else "flag" if check.holds else "flag_fails"]
        return _fill(template, lang, left=flag, value=answer(check.left_value), need=needed, needs=needs)
    brief = short or need_only
    if right and not brief:
        threshold = _fill(why["named"], lang, name=right, value=threshold)
    need = _fill(why["need_named"].get(check.op, why["need"][check.op]) if right and not brief
                 else why["need"][check.op], lang, t=threshold)
    if need_only:
        return need
    template = why["short_by" if needs else "short" if short else "check"]
    return _fill(template, lang, left=left, value=value, need=need, needs=needs)


_OPERATOR_TYPES = {symbol: kind for kind, symbol in registry._OPERATORS.items()}


def _join(checks: list[registry.Check], results: dict, lang: str, short: bool = False) -> str:
    """Comparisons in a row; the failed alternatives of one ``or`` joined by "or"."""
    why = WHY[lang]
    text, previous = "", None
    for check in checks:
        part = _check(check, results, lang, short)
        if previous is None:
            text = part
        else:
            joint = "or" if check.either and check.either == previous.either else "and"
            word = why[f"short_{joint}"] if short else why["or" if joint == "or" else "checks"]
            text = _fill("{a}" + word + "{b}", lang, a=text, b=part)
        previous = check
    return text


def _deciding(case: registry.CaseOutcome) -> list[registry.Check]:
    """The comparisons that decided a case: all of a case that held, the failed ones of a case
    that did not (those before them held, and decided nothing)."""
    if case.holds:
        return case.checks
    return [c for c in case.checks if not c.holds] or case.checks


def _case_names(explanation: registry.Explanation, claim: registry.Claim, lang: str) -> list[str]:
    """Each case of the rule named once: by its verdict, and by its rank among the rule's
    cases of that verdict where there are several ("the second *nuanced* case")."""
    why, names = WHY[lang], UI[lang]["verdicts"]
    verdicts = [verdict for verdict, _ in claim.cases] or [c.verdict for c in explanation.cases]
    named = []
    for index, case in enumerate(explanation.cases):
        same = [i for i, v in enumerate(verdicts) if v == case.verdict]
        if len(same) > 1:
            named.append(why["nth_case"].format(nth=why["nth"][same.index(index)], verdict=names[case.verdict]))
        else:
            named.append(why["case"].format(verdict=names[case.verdict]))
    return named


def _capital(sentence: str, lang: str) -> str:
    return sentence[0].upper() + sentence[1:] if lang == "en" and sentence else sentence


def reason(claim: registry.Claim, explanation: registry.Explanation, results: dict, lang: str,
           assessment=None) -> str:
    """Why ``claim``'s rule gives its verdict, in sentences: the case that held with each
    number beside its threshold, then each case checked before it and why it did not hold
    (or, when none held, what each case lacked)."""
    why, names = WHY[lang], UI[lang]["verdicts"]
    cases = _case_names(explanation, claim, lang)
    if not explanation.cases:
        sentences = [why["no_case"].format(verdict=names[explanation.verdict])]
    elif explanation.held is None:
        sentences = [why["none"].format(verdict=names[explanation.verdict])]
        for index, case in enumerate(explanation.cases):
            template = why["fails" if index == 0 else "nor"]
            sentences.append(_capital(_fill(template, lang, case=cases[index],
                                            checks=_join(_deciding(case), results, lang)), lang))
    else:
        held = explanation.cases[explanation.held]
        sentences = [_capital(_fill(why["held"], lang, case=cases[explanation.held],
                                    checks=_join(held.checks, results, lang)), lang)]
        for index, case in enumerate(explanation.cases[:explanation.held]):
            template = why["before" if index == 0 else "nor"]
            sentences.append(_capital(_fill(template, lang, case=cases[index],
                                            checks=_join(_deciding(case), results, lang)), lang))
    text = ("" if lang == "zh" else " ").join(sentences)
    if assessment is not None and assessment.undecided:
        text = why["undecided"] + text[0].lower() + text[1:] if lang == "en" else why["undecided"] + text
    elif assessment is not None and assessment.unpowered:
        # "按记录下的数字，单看规则，“推翻”情形成立" (not "单看规则，规则的…")
        text = (why["unpowered"] + text[0].lower() + text[1:] if lang == "en"
                else why["unpowered"] + text.removeprefix("规则的"))
    return _capital(text, lang)


def because(claim: registry.Claim, explanation: registry.Explanation, results: dict, lang: str,
            assessment=None) -> str:
    """The table's one clause: the deciding comparisons of the case that gave the verdict
    (without the conditions every case shares, such as enough items); when no case held,
    what the cases of the other verdicts lacked; when the shown verdict is open because the
    seeds or the power check leave it so, that."""
    why, names = WHY[lang], UI[lang]["verdicts"]
    if assessment is not None and assessment.undecided:
        by_items = bool(getattr(assessment, "items", None)) and not assessment.seeds
        share = f"{math.floor(100 * assessment.stability + 1e-9)}" + (" %" if lang == "en" else "%")
        return _fill(why["short_undecided"], lang, rule=names[assessment.rule_verdict], share=share,
                     what=why["items" if by_items else "seeds"])
    if assessment is not None and assessment.unpowered:
        if assessment.power is None:
            return why["short_unpowered_none"]
        share = f"{math.floor(100 * assessment.power + 1e-9)}" + (" %" if lang == "en" else "%")
        return _fill(why["short_unpowered"], lang, share=share)
    if not explanation.cases:
        return why["short_no_case"]
    if explanation.held is not None:
        checks = explanation.cases[explanation.held].checks
        shared = set.intersection(*({_identity(c) for c in case.checks}
                                    for case in explanation.cases)) if len(claim.cases) > 1 else set()
        deciding = [c for c in checks if _identity(c) not in shared] or checks
        text = _check(_nearest(deciding), results, lang, short=True)
        more = len(deciding) - 1
        return _fill(why["short_more"][more > 1], lang, check=text, n=more) if more else text
    # No case held: each verdict's nearest miss, one number once with what each verdict needed
    # of it ("… is 4 (needs at least 6 for *verified*, at most 2 for *refuted*)").
    misses: dict[str, list[registry.Check]] = {}
    for case in explanation.cases:
        if case.verdict != "open":   # an open case guards the data (enough items): not a near miss
            misses.setdefault(case.verdict, []).extend(_deciding(case))
    if not misses:
        return why["short_none"]
    by_number: dict[tuple[str, float], list[tuple[str, registry.Check]]] = {}
    for verdict, checks in misses.items():
        check = _nearest(checks)
        by_number.setdefault((ast.dump(check.left), check.left_value), []).append((verdict, check))
    parts = []
    for pairs in by_number.values():
        needs = why["short_needs_sep"].join(
            _fill(why["short_need_for"], lang, verdict=names[verdict],
                  need=_check(check, results, lang, need_only=True)) for verdict, check in pairs)
        parts.append(_check(pairs[0][1], results, lang, short=True, needs=needs))
    return why["short_parts"].join(parts)


def _nearest(checks: list[registry.Check]) -> registry.Check:
    """The comparison whose number came nearest its threshold (relatively): of a case that
    held, the condition it met by the least; of one that did not, its nearest miss."""
    return min(checks, key=lambda c: abs(c.left_value - c.right_value)
               / max(abs(c.left_value), abs(c.right_value), 1e-12))


def _identity(check: registry.Check) -> tuple[str, str, str]:
    return ast.dump(check.left), check.op, ast.dump(check.right)


def reasons(lang: str, claims: dict[str, registry.Claim], results: dict,
            assessments: dict | None = None) -> dict[str, str]:
    """Each claim's verdict in sentences (``{}`` when nothing ran)."""
    if not results:
        return {}
    numbers = registry.measurements(results, claims)
    return {claim_id: reason(claim, registry.explain(claim, numbers), results, lang,
                             (assessments or {}).get(claim_id))
            for claim_id, claim in claims.items()}


def becauses(lang: str, claims: dict[str, registry.Claim], results: dict,
             assessments: dict | None = None) -> dict[str, str]:
    """Each claim's verdict in one clause, for the ledger's table (``{}`` when nothing ran)."""
    if not results:
        return {}
    numbers = registry.measurements(results, claims)
    return {claim_id: because(claim, registry.explain(claim, numbers), results, lang,
                              (assessments or {}).get(claim_id))
            for claim_id, claim in claims.items()}
