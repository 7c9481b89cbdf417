"""The claims ledger page and the verdict badges on content pages, in one language.

Both read the verdicts that tools/verdicts/claims.py computed from the registry's rules; neither
decides anything itself.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import re
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
        "counts": "{total} claims: {counts}.",
        "index": "Claim", "verdict": "Verdict", "source": "Source", "rule": "Rule", "baseline": "Compared with",
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
                        "还能保持多少（有放回地重抽 1000 次）；低于 90% 时，构建过程把种子数加倍重新训练，"
                        "直到登记表定下的上限；到了上限仍不稳定的结论显示为*待定*（未定）。"
                        "要推翻关于模型实际行为的论断，同一检验必须在至少 80% 的抽样里检出人为植入的效应"
                        "（其大小恰好能让论断成立）；否则显示为*待定*：这个检验分辨不出来。"),
        "counts": "共 {total} 条论断：{counts}。",
        "index": "论断", "verdict": "结论", "source": "出处", "rule": "判定规则", "baseline": "对照与校正",
        "related": "并列参看",
        "tested_on": "检验它的页面", "details": "论断原文、判定规则与实验",
        "filter": "只看", "all": "全部",
        "stability": "稳定性",
        "stable": "把 {n} 个种子有放回地重抽 {draws} 次，规则在其中 {share} 的重抽里给出“{rule}”（达到 90% 即算稳定）",
        "undecided": ("在 n = {n} 时仍未定：按记录下的种子，规则给出“{rule}”，但把种子重抽 {draws} 次，"
                      "只有 {share} 给出同样的结论（需要 90%），而 {n} 已是这条论断的种子上限；因此显示为“待定”"),
        "undecided_short": "n = {n} 时未定",
        "stable_items": "把 {n} 个样例有放回地重抽 {draws} 次，规则在其中 {share} 的重抽里给出“{rule}”（达到 90% 即算稳定）",
        "undecided_items": ("在 n = {n} 个样例时仍未定：按测量的样例，规则给出“{rule}”，但把样例重抽 {draws} 次，"
                            "只有 {share} 给出同样的结论（需要 90%）；因此显示为“待定”"),
        "undecided_short_items": "{n} 个样例时未定",
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
    draws = f"{registry.RESAMPLINGS:,}" if lang == "en" else str(registry.RESAMPLINGS)
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
         history: dict[str, list[dict]] | None = None) -> str:
    """The ledger in Markdown. ``where`` maps a snippet to (page path, page title);
    ``assessments`` (tools.verdicts.claims.assess) add each trained verdict's stability, ``reasons``
    (``reasons()``) the sentence that says why. Compact: each claim shows its verdict and
    that sentence; the claim's text, rule and experiments are folded under it."""
    assessments, reasons = assessments or {}, reasons or {}
    colon = "：" if lang == "zh" else ":"
    ui = UI[lang]
    counts = {v: sum(1 for x in verdicts.values() if x == v) for v in registry.VERDICTS}
    count_text = ("、" if lang == "zh" else ", ").join(
        f"{verdict_badge(v, lang)} {counts[v]}" for v in registry.VERDICTS)
    numbers = registry.measurements(results, claims) if results else {}
    intro = ui["intro"].format(sources=sources_href or "#", history=history_sentence(lang, history, claims))
    lines = [f"# {ui['title']}", "", intro, "",
             ui["kinds_intro"], "", ui["counts"].format(total=len(claims), counts=count_text), "",
             *_filter(lang, counts, len(claims)),
             f"| {ui['index']} | {ui['verdict']} | {ui['tested_on']} | {ui['stability']} |",
             "|---|---|---|---|"]
    for claim_id, claim in claims.items():
        lines.append(f"| [{claim_id}](#{claim_id}) {claim.title[lang]} "
                     f"| {verdict_badge(verdicts[claim_id], lang)} "
                     f"| {_tested_on(claim, where, lang)} "
                     f"| {stability(assessments.get(claim_id), lang, short=True) or '—'} |")
    lines.append("")
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
           reasons: dict[str, str] | None = None) -> str:
    """The claims a snippet's experiment bears on: each with its one verdict, linked to the ledger."""
    rows = []
    for claim_id, claim in claims.items():
        if any(e.snippet == snippet for e in claim.experiments):
            rows.append(claim_badge(claim_id, lang, claims, verdicts, ledger_href, assessments,
                                    reasons))
    return "\n".join(rows)


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


def claim_badge(claim_id: str, lang: str, claims: dict[str, registry.Claim],
                verdicts: dict[str, str | None], ledger_href: str, assessments: dict | None = None,
                reasons: dict[str, str] | None = None) -> str:
    claim = claims[claim_id]
    colon = "：" if lang == "zh" else ":"
    note = "".join(f"\n\n{line}" for line in notes((assessments or {}).get(claim_id), lang))
    why = (reasons or {}).get(claim_id)
    why = f'\n\n<span class="claim-why">{WHY[lang]["label"]}{colon}</span> {why}' if why else ""
    return (f'<div class="claim-badge" markdown>\n\n'
            f'[{claim_id} · {claim.title[lang]}]({ledger_href}#{claim_id}) '
            f'{verdict_badge(verdicts.get(claim_id), lang)}\n\n{claim.text[lang]}{why}{note}\n\n</div>\n')


# --- Why: one sentence per verdict, from the rule's evaluation (claims.explain) -------------

WHY = {
    "en": {
        "label": "Why",
        "holds": "{left} is {value} ({op} {right})",
        "fails": "{left} is {value}, not {op} {right}",
        "and": " and ", "comma": ", ", "but": ", but ", "parts": "; ",
        "held": "the *{verdict}* case of the rule holds: {checks}.",
        "held_after": ("the *{verdict}* case of the rule holds: {checks}; the *{earlier}* case, "
                       "checked first, does not ({why})."),
        "none": "no case of the rule holds, so it gives *{verdict}*: {cases}.",
        "case": "for *{verdict}*, {checks}",
        "no_case": "no experiment decides this claim yet: its rule has no case and gives *{verdict}*.",
        "undecided": "on the recorded seeds, ",
        "unpowered": "on the numbers alone, ",
        "within": "the number of the rule's {n} values between {low} and {high}",
    },
    "zh": {
        "label": "为什么",
        "holds": "{left}为 {value}（{op} {right}）",
        "fails": "{left}为 {value}，不满足 {op} {right}",
        # Checks within a case are set off by "；" (a label may hold a comma), cases by "。"
        "and": "；", "comma": "；", "but": "；但", "parts": "。", "parts_inline": "；",
        "held": "规则的“{verdict}”情形成立：{checks}。",
        "held_after": "规则的“{verdict}”情形成立：{checks}；先检查的“{earlier}”情形不成立（{why}）。",
        "none": "规则的各种情形都不成立，因此给出“{verdict}”。{cases}。",
        "case": "就“{verdict}”而言，{checks}",
        "no_case": "还没有实验判定这条论断：它的规则还没有任何情形，结论为“{verdict}”。",
        "undecided": "按记录下的种子，",
        "unpowered": "按记录下的数字，单看规则，",
        "within": "规则读取的 {n} 个数中落在 {low} 到 {high} 之间的个数",
    },
}
SYMBOLS = {"<": "<", "<=": "≤", ">": ">", ">=": "≥", "==": "=", "!=": "≠"}
ARITHMETIC = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "÷"}


def _number_like(value: float, like: str) -> str:
    """``value`` written the way the number it is compared with is written (``like``: a
    recorded text such as "65 %", "0.12" or "3.2e-07")."""
    if like.endswith("%"):
        digits = re.search(r"\.(\d+)", like)
        text = f"{100 * value:.{len(digits.group(1)) if digits else 0}f}"
        return text + (" %" if like.endswith(" %") else "%")
    if re.search(r"\de[-+]", like):
        return "0" if value == 0 else f"{value:.1e}".replace(".0e", "e")
    digits = re.search(r"\.(\d+)", like)
    text = f"{value:.{len(digits.group(1)) if digits else 0}f}"
    return text if float(text) != 0 or value == 0 else f"{value:g}"


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
    """A rule's arithmetic in words: names by what they are, × − + ÷, |x|."""
    if isinstance(node, ast.Attribute):
        return _about(registry._dotted(node), results, lang)[0]
    if isinstance(node, ast.Constant):
        return f"{node.value:g}"
    if isinstance(node, ast.UnaryOp):
        return "−" + _expression(node.operand, results, lang)
    if isinstance(node, ast.BinOp):
        def side(part, right: bool):
            text = _expression(part, results, lang)
            inner, outer = _precedence(part), _precedence(node)
            return f"({text})" if inner < outer or (right and inner == outer) else text
        return f"{side(node.left, False)} {ARITHMETIC[type(node.op)]} {side(node.right, True)}"
    if isinstance(node, ast.Call) and node.func.id == "within":
        low, high, *values = (_expression(a, results, lang) for a in node.args)
        return WHY[lang]["within"].format(n=len(values), low=low, high=high)
    if isinstance(node, ast.Call):
        args = [_expression(a, results, lang) for a in node.args]
        if lang == "zh" and node.func.id in ("max", "min"):
            # 甲与乙中的较大者: Chinese names joined by a comma would read as half-width
            # punctuation in Chinese running text ("max(…实体头, Clark 等…)")
            larger = node.func.id == "max"
            which = ("较大者" if larger else "较小者") if len(args) == 2 else ("最大者" if larger else "最小者")
            joined = args[0]
            for arg in args[1:]:  # a space between Chinese and a Latin name: 与 Clark 等
                joined += ("与" if len(args) == 2 else "、") + (" " if re.match(r"[A-Za-z0-9]", arg) else "") + arg
            return f"（{joined}{' ' if re.search(r'[A-Za-z0-9)]$', joined) else ''}中的{which}）"
        inner = ", ".join(args)
        return f"|{inner}|" if node.func.id == "abs" else f"{node.func.id}({inner})"
    return ast.unparse(node)


def _precedence(node) -> int:
    if not isinstance(node, ast.BinOp):
        return 3  # a name, a number, a call: never needs brackets
    return 1 if isinstance(node.op, (ast.Add, ast.Sub)) else 2


def _side(node, value: float, other, results: dict, lang: str) -> tuple[str, str]:
    """One side of a comparison: (what it is, its value as text). A threshold is written as
    the rule writes it (a percentage where the number it bounds is one); a computed side is
    rounded like the number it is compared with."""
    if isinstance(node, ast.Attribute):
        about, text = _about(registry._dotted(node), results, lang)
        return about, text or f"{value:g}"
    if isinstance(node, ast.Constant):
        like = _recorded_text(other, results, lang)
        return "", _number_like(value, like) if like.endswith("%") else f"{value:g}"
    like = _recorded_text(node, results, lang) or _recorded_text(other, results, lang)
    return _expression(node, results, lang), _number_like(value, like) if like else _plain(value)


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


def _check(check: registry.Check, results: dict, lang: str) -> str:
    left, left_text = _side(check.left, check.left_value, check.right, results, lang)
    right, right_text = _side(check.right, check.right_value, check.left, results, lang)
    computed = "= " if not isinstance(check.right, ast.Attribute) else ""
    threshold = right_text
    if right:
        threshold = f"{right}（{computed}{right_text}）" if lang == "zh" else f"{right} ({computed}{right_text})"
    left = left or left_text
    if lang == "zh" and (re.search(r"[\w)]$", left, re.ASCII) or left.endswith(("√dₖ", "ₖ"))):
        left += " "  # "… shown 为 3", "除以 √dₖ 为": a space between Latin text and Chinese
    template = WHY[lang]["holds" if check.holds else "fails"]
    return template.format(left=left, value=left_text, op=SYMBOLS[check.op], right=threshold)


def _checks(case: registry.CaseOutcome, results: dict, lang: str) -> str:
    why = WHY[lang]
    held = [_check(c, results, lang) for c in case.checks if c.holds]
    failed = [_check(c, results, lang) for c in case.checks if not c.holds]

    def join(parts):
        if lang == "zh" or len(parts) < 2:
            return why["comma"].join(parts)
        return why["comma"].join(parts[:-1]) + why["and"] + parts[-1]
    if not failed:
        return join(held)
    return (join(held) + why["but"] if held else "") + join(failed)


def reason(claim: registry.Claim, explanation: registry.Explanation, results: dict, lang: str,
           assessment=None) -> str:
    """Why ``claim``'s rule gives its verdict, in one sentence: which case held, each number
    against its threshold (or, when none held, what each case lacked)."""
    why, names = WHY[lang], UI[lang]["verdicts"]
    verdict = names[explanation.verdict]
    if not explanation.cases:
        sentence = why["no_case"].format(verdict=verdict)
    elif explanation.held is None:
        cases = why["parts"].join(why["case"].format(verdict=names[c.verdict],
                                                      checks=_checks(c, results, lang))
                                  for c in explanation.cases)
        sentence = why["none"].format(verdict=verdict, cases=cases)
    else:
        checks = _checks(explanation.cases[explanation.held], results, lang)
        earlier = explanation.cases[:explanation.held]
        sentence = why["held_after" if earlier else "held"].format(
            verdict=verdict, checks=checks,
            earlier=("、" if lang == "zh" else ", ").join(names[c.verdict] for c in earlier),
            why=why.get("parts_inline", why["parts"]).join(_checks(c, results, lang) for c in earlier))
    if assessment is not None and assessment.undecided:
        sentence = why["undecided"] + sentence  # the stability line says why it shows open
    elif assessment is not None and assessment.unpowered:
        sentence = why["unpowered"] + sentence  # the power line says why it shows open
    return sentence[0].upper() + sentence[1:] if lang == "en" else sentence


def reasons(lang: str, claims: dict[str, registry.Claim], results: dict,
            assessments: dict | None = None) -> dict[str, str]:
    """Each claim's verdict in one sentence (``{}`` when nothing ran)."""
    if not results:
        return {}
    numbers = registry.measurements(results, claims)
    return {claim_id: reason(claim, registry.explain(claim, numbers), results, lang,
                             (assessments or {}).get(claim_id))
            for claim_id, claim in claims.items()}
