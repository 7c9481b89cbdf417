"""No outcome sentence by hand (issue 33, rule G4).

A sentence that states what an experiment found ("so something in the model does follow the
referent", "每一窝的动词都学会了…") is built from the recorded numbers: it cites the number or
the category its outcome rests on, through a macro the build fills from the run. A
sentence typed by hand stays on the page when a re-run changes the number under it.

What is read. Every page's Markdown source in docs/en and docs/zh, prose only: front matter,
fenced code, display and inline math, HTML comments, inline code and link targets are dropped;
a macro call becomes a marker (``⟦value3⟧``, one number per name it cites on the page), so its
inside (``…every_seed_passes``) never matches the lexicon. Headings, list items and
table rows are sentences of their own (a table's header row is dropped). The sources and
references pages are not read: they report what others wrote, not a run of ours.

What is an outcome sentence (the lexicon, tuned on the pages so that its hits are outcomes):
- a *verdict* (``VERDICT``): passes, fails, beats, outperforms, is refuted / verified;
  通过检验, 胜过, 优于, 被推翻, 证实了;
- a *statement* (``STATEMENT``): a quantifier only a count can back (most / almost all / no /
  not one + heads, seeds, models, colonies; in every / in most + seeds, runs, colonies;
  大多数头, 没有一个种子), a result said of every unit (every, each, all, never, always … with a
  verb of result: learned, came to, formed, took, passed …; 每个 / 所有 / 从未 / 总是 … 学会,
  形成, 答对, 超过 …), an inference or an emphatic "does" (So … does, This shows, does follow /
  matter / keep; 可见, 这说明, 确实, 果然).
Not outcomes (``HYPOTHESIS``): a hypothesis, a definition or a rule (if, should, would, unless,
whether, 如果, 应当, 是否, … 则 …), a possibility (can, could, 能够, 可能), a general fact
(typically, 通常), a question, a heading that asks one (What …, Why …).

What supports it (``supported``):
- a statement cites a ``value``, ``choose`` (the run's category picks the words), ``text``,
  ``claims``, ``claim`` or ``literature`` macro
  (``{{ value("key") }}``) in the same sentence;
- a verdict may also rest on the sentence before ("⟦value⟧ heads clear the bar. Two of them
  pass …" — it judges the number just given);
- an inference ("So …", "This shows …", 可见, 所以, 因此, 这说明) cites a number *of the sentence
  it draws from*: its outcome would be false were that number different, and a number of its
  own (the it-animal sentence cites a head's weights) does not back it. After a sentence
  without a number, a number of its own does.

``NOT_OUTCOMES`` lists, by their opening words and with a reason each, the few sentences the
lexicon matches that state no outcome of a run.

Captions and alt texts recorded in results.json are read with the same lexicon; there an
outcome sentence shows a number the run recorded (the snippet formats its captions from the
run; tests/test_figures.py checks their shares)."""

import re
from pathlib import Path

import pytest

from tools.pages import page_macros

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# --- The lexicon ---------------------------------------------------------------------------

# What a run counts: the subjects of an outcome (a layer is mostly the architecture's).
UNIT = r"(?:head|seed|run|model|colony|trial)"
UNITS = r"(?:heads|seeds|runs|models|colonies|trials)"
UNITS_ZH = r"(?:种子|头|模型|蚁群|窝|次运行)"
# The repetitions of an experiment ("in every seed"; "in every head" describes a set-up).
REPEATS = r"(?:seeds?|runs?|models?|colon(?:y|ies)|trials?)"
# What a run did to them: the verbs of a result (a description of the set-up has none).
RESULTS = (r"(?:learn(?:s|ed|t)|come to|came to|form(?:s|ed)|end(?:s|ed)? up|converge(?:s|d)|"
           r"diverge(?:s|d)|develop(?:s|ed)|emerge(?:s|d)|settle(?:s|d)|took|reach(?:es|ed)|"
           r"pass(?:es|ed)|fail(?:s|ed)|kept|specialise[sd])")
RESULTS_ZH = r"(?:学会|学到|学出|形成|收敛|分化|答对|答错|留在|停在|超过|低于|高于|做到|通过|失败|胜过)"

# A verdict on what was just measured: the sentence before may cite the number it rests on.
VERDICT = re.compile("|".join([
    r"\b(?:pass(?:es|ed)|fail(?:s|ed)|beats|beat|outperform(?:s|ed))\b(?! (?:to|on|the build)\b)",
    r"\bpass (?:th(?:at|is|e) )?(?:test|check|bar)\b",
    r"\b(?:is|are|was|were|stands?) (?:refuted|verified|confirmed|falsified)\b",
    r"通过(?:了)?(?:这一|这个|该)?检验|没通过|未通过|胜过|优于|被推翻|推翻了|证实了|被证实|证伪",
]), re.I)
# A statement of its own — a quantifier only a count can back, a result said of every unit,
# an inference or an emphatic "does": it cites the number it rests on itself.
STATEMENT = re.compile("|".join([
    rf"\b(?:most|almost all|nearly all|none of the|not one of the) (?:[a-z]+ )?{UNITS}\b",
    rf"\b(?:almost every|not one|no) (?:[a-z]+ )?{UNIT}s?\b",
    rf"\bin (?:every|all|most|no|none of the) (?:[a-z]+ )?{REPEATS}\b",
    rf"\b(?:every|each|all|never|always)\b(?:[^.;:,]{{0,40}}){RESULTS}\b",
    r"^(?:so|thus|therefore|hence)\b[^.]*\b(?:does|do|did)\b",
    r"^(?:this shows|this means that)\b",
    r"\b(?:does|do|did) (?:indeed )?(?:follow|start|matter|keep|learn|form|hold|help|carry|prefer|appear|emerge|move|track|change)\b",
    rf"(?:大多数|大部分|绝大多数|几乎所有|几乎每个|多数)(?:的)?{UNITS_ZH}",
    rf"没有(?:一个|哪个|任何){UNITS_ZH}|一个{UNITS_ZH}?也没有",
    rf"(?:每个|每一个|每一|所有|全部|从不|从未|总是|始终)[^，。；：]{{0,12}}{RESULTS_ZH}",
    r"^(?:可见|这说明|这表明|由此可见)",
    r"确实|果然",
]), re.I)
# Not outcomes: a hypothesis, a definition or a rule (if …, 如果 …, … 则 …), what can or
# could happen (a possibility, not a result), what typically happens (a general fact), and a
# question, or a heading that asks one (whether …, what does …, 是否).
HYPOTHESIS = re.compile(r"\b(?:if|should|would|unless|can|cannot|could|whether|typically|usually)\b"
                        r"|^(?:what|why|how|which)\b|如果|若是|应当|应该|能够|可能|(?<!规|原|否)则|是否|通常"
                        r"|要(?:胜过|通过|超过)|[?？]$", re.I)
# An inference from the sentence before ("So …", 可见 …).
INFERENCE = re.compile(r"(?:so|thus|therefore|hence|this shows|this means)\b|(?:可见|所以|因此|这说明|这表明|由此可见|也就是说)", re.I)
# Pages that report what others wrote (the source explanations' claims, the papers' results),
# not a run of ours: nothing there can cite a recorded number.
NOT_RUN_PAGES = {f"{lang}/{page}" for lang in ("en", "zh") for page in ("sources.md", "references.md")}

SUPPORT = {"value", "choose", "text", "claims", "claim", "literature"}

# --- Sentences that match the lexicon but state no outcome ----------------------------------

# A sentence's opening (as the prose reader gives it, placeholders as markers) and why it
# states no outcome of a run. Keep it short: an outcome is cited or removed, never listed here.
NOT_OUTCOMES: dict[str, str] = {
    "⟦code⟧ starts one that already builds and passes.":
        "en/index: the page template passes the project's tests, no experiment",
    "The claims ledger's rule for this claim calls 追逐 linked to 激光点 in a seed when":
        "en/three-roles/translation: the rule's definition of a pass, before the run",
    "GPT-2 and most models since put it before attention":
        "en/transformer-block: architecture history (where models put the layer norm)",
    "GPT-2 以及之后的大多数模型把它放在注意力和 MLP 之前":
        "zh/transformer-block: the same",
    "在真实翻译任务上，单头确实差一些——差 0.9 BLEU":
        "zh/many-heads/one-head-or-many: Vaswani et al.'s number, quoted from the table above it",
    "在从模型里读出任何东西之前，得先确认读到的确实是模型本身":
        "zh/real-model/weights: 确实 as in 'make sure that', before any check is run",
}

# Pages other branches are editing now (issue 33): reported, not failed. Temporary.

# --- Prose, cut into sentences ---------------------------------------------------------------

MARKER = re.compile(r"⟦([a-z]+)(\d+)⟧")
FENCE = re.compile(r"^(\s*)(```|~~~).*?^\1\2[^\n]*$", re.S | re.M)
DROPPED = [
    re.compile(r"\A---\n.*?\n---\n", re.S),            # front matter
    re.compile(r"<!--.*?-->", re.S),                   # HTML comments
    re.compile(r"\$\$.*?\$\$", re.S),                  # display math
    re.compile(r"\\\[.*?\\\]", re.S),
]
INLINE = [
    (re.compile(r"(?<![\\$])\$[^$\n]+\$"), "⟦math⟧"),   # inline math
    (re.compile(r"`[^`\n]+`"), "⟦code⟧"),
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),   # a link's text, not its target
    (re.compile(r"<[^>\n]+>"), " "),                    # inline HTML tags
    (re.compile(r"[*_]{1,2}(?=\S)|(?<=\S)[*_]{1,2}"), ""),  # emphasis marks
]
ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|et al|vs|cf|Fig|§)\.", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(⟦A-Z0-9*_])|(?<=[。！？；])")
BLOCK_START = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|\||\?\?\?|!!!)")


def paragraphs(markdown: str) -> list[str]:
    """The page's prose, one string per paragraph, heading, list item or table row."""
    targets: dict[str, int] = {}  # one number per name a call cites: the same number, the same marker
    text = page_macros.render(markdown, lambda c: f"⟦{c.kind}{targets.setdefault(c.target, len(targets))}⟧")
    text = FENCE.sub("", text)
    for pattern in DROPPED:
        text = pattern.sub("", text)
    for pattern, repl in INLINE:
        text = pattern.sub(repl, text)
    blocks, current = [], []
    for line in text.split("\n"):
        if re.fullmatch(r"\s*\|[\s:|-]+\|\s*", line):
            blocks.pop()  # a table's header row names columns; its separator is no prose
            continue
        if not line.strip() or BLOCK_START.match(line):
            if current:
                blocks.append(" ".join(current))
            current = [] if not line.strip() else [line.strip()]
            if line.strip().startswith(("|", "#", "???", "!!!")):
                blocks.append(current.pop())
            continue
        current.append(line.strip())
    if current:
        blocks.append(" ".join(current))
    return [re.sub(r"^(?:#{1,6}|[-*+]|\d+[.)]|\?\?\?|!!!)\s+", "", b).strip() for b in blocks if b.strip()]


def sentences(paragraph: str) -> list[str]:
    protected = ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", "∙"), paragraph)
    return [s.replace("∙", ".").strip() for s in SENTENCE_END.split(protected) if s.strip()]


def cited(sentence: str) -> set[str]:
    """The recorded numbers (and texts, verdicts) a sentence cites, as markers."""
    return {m.group(0) for m in MARKER.finditer(sentence) if m.group(1) in SUPPORT}


def outcome_kind(sentence: str) -> str | None:
    """"statement", "verdict" or None (no outcome, or a hypothesis)."""
    plain = sentence.strip("*_ \"“")
    if HYPOTHESIS.search(plain):
        return None
    return "statement" if STATEMENT.search(plain) else "verdict" if VERDICT.search(plain) else None


def supported(sentence: str, before: str) -> bool:
    """The support rule of the module's docstring: an inference cites a number of the
    sentence it draws from (or, after a sentence without one, a number of its own); a
    verdict may rest on the sentence before; a statement cites its own number."""
    kind = outcome_kind(sentence)
    if kind is None:
        return True
    if INFERENCE.match(sentence.lstrip("*_ \"“")):
        return bool(cited(sentence) & cited(before)) if cited(before) else bool(cited(sentence))
    return bool(cited(sentence) or (kind == "verdict" and cited(before)))


def unsupported_outcomes(markdown: str) -> list[str]:
    """Every outcome sentence of a page's Markdown that no recorded number supports, as the
    page shows it (macro calls as markers)."""
    found = []
    for paragraph in paragraphs(markdown):
        before = ""
        for sentence in sentences(paragraph):
            if not supported(sentence, before) and not sentence.startswith(tuple(NOT_OUTCOMES)):
                found.append(sentence)
            before = sentence
    return found


def pages() -> list[str]:
    return sorted(page for lang in ("en", "zh") for page in
                  (str(p.relative_to(DOCS)) for p in (DOCS / lang).rglob("*.md")) if page not in NOT_RUN_PAGES)


# --- The check, on planted sentences ---------------------------------------------------------

# The it-animal page on 2026-12-02 (docs/en/real-model/it-animal.md, docs/zh/…): the second
# sentence cites the resolver head's weights, but its outcome — something does follow the
# referent — rests on the count of the sentence before, and would be false were it 0.
IT_ANIMAL_TODAY = (
    "chance with probability {{ value('real_model.head_roles.coreference_best_p') }}.\n"
    "{{ value('real_model.head_roles.coreference_heads') }} heads pass that test. So\n"
    "something in the model does follow the referent — but weakly, and with very\n"
    "little weight: head [{{ value('real_model.it_animal.resolver_layer') }}-{{ value('real_model.it_animal.resolver_head') }}]"
    "(explorer.md?s=0&l={{ value('real_model.it_animal.resolver_layer') }}&h={{ value('real_model.it_animal.resolver_head') }}&t=10)\n"
    "gives the right noun {{ value('real_model.it_animal.resolver_to_right_mean') }} of\n"
    "the attention of *it* on average.\n")
IT_ANIMAL_TODAY_ZH = (
    "靠运气出现这么好的最佳头，概率是 {{ value('real_model.head_roles.coreference_best_p') }}。"
    "通过这一检验的头数是 {{ value('real_model.head_roles.coreference_heads') }}。"
    "可见模型里确实有东西在跟着所指对象走——但很弱，权重也很小：头 [{{ value('real_model.it_animal.resolver_layer') }}-"
    "{{ value('real_model.it_animal.resolver_head') }}](explorer.md?s=0&l={{ value('real_model.it_animal.resolver_layer') }}"
    "&h={{ value('real_model.it_animal.resolver_head') }}&t=10) 平均只把 *it* 的 "
    "{{ value('real_model.it_animal.resolver_to_right_mean') }} 的注意力给正确的名词。\n")


def test_the_it_animal_sentence_as_it_stands_is_caught():
    [flagged] = unsupported_outcomes(IT_ANIMAL_TODAY)
    assert flagged.startswith("So something in the model does follow the referent")
    [flagged] = unsupported_outcomes(IT_ANIMAL_TODAY_ZH)
    assert flagged.startswith("可见模型里确实有东西在跟着所指对象走")


def test_the_it_animal_sentence_that_cites_its_number_passes():
    count = "{{ value('real_model.head_roles.coreference_heads') }}"
    cited = IT_ANIMAL_TODAY.replace("So\nsomething in the model does follow", f"So\nthese {count} heads do follow")
    assert unsupported_outcomes(cited) == []
    cited_zh = IT_ANIMAL_TODAY_ZH.replace("可见模型里确实有东西", f"可见这 {count} 个头确实")
    assert unsupported_outcomes(cited_zh) == []
    # Typed by hand again, the count gone: caught whatever else the sentence cites.
    assert len(unsupported_outcomes(cited.replace(f"these {count} heads", "some heads"))) == 1


def test_explanations_and_cited_outcomes_are_not_flagged():
    page = ("A softmax gives every key a positive weight. Heads are removed by zeroing their output.\n\n"
            "In {{ value('demo.seeds') }} of {{ value('demo.n') }} seeds the head forms. It passes the test in each of them.\n\n"
            "```python\nassert every_seed_passes\n```\n\n$$\\text{no head}$$\n\n<!-- every head fails -->\n")
    assert unsupported_outcomes(page) == []
    assert unsupported_outcomes("The copy head fails in most seeds.") == ["The copy head fails in most seeds."]
    assert unsupported_outcomes("大多数种子里都学会了。") == ["大多数种子里都学会了。"]


def test_the_prose_reader_skips_code_math_comments_and_macros():
    page = ("---\ntitle: every head fails\n---\n# Title\n\nOne $x$ and `no head` here,"
            " {{ value('a.every_seed_passes') }}.\n\n```\nno head\n```\n")
    assert paragraphs(page) == ["Title", "One ⟦math⟧ and ⟦code⟧ here, ⟦value0⟧."]


# --- The pages ------------------------------------------------------------------------------

def flagged_by_page() -> dict[str, list[str]]:
    found = {}
    for page in pages():
        hits = unsupported_outcomes((DOCS / page).read_text(encoding="utf-8"))
        if hits:
            found[page] = hits
    return found


def report(found: dict[str, list[str]]) -> str:
    return "\n".join(f"{page}: {s}" for page, hits in found.items() for s in hits)


def test_no_page_states_an_outcome_no_recorded_number_supports():
    found = flagged_by_page()
    assert found == {}, f"{sum(map(len, found.values()))} outcome sentences typed by hand:\n" + report(found)


def test_every_allowlisted_sentence_is_still_on_a_page():
    prose = [s for page in pages() for p in paragraphs((DOCS / page).read_text(encoding="utf-8"))
             for s in sentences(p)]
    assert [start for start in NOT_OUTCOMES if not any(s.startswith(start) for s in prose)] == []


# --- Captions and alt texts ---------------------------------------------------------------

NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(\s?%)?")


def shows_a_recorded_number(sentence: str, recorded: set[float]) -> bool:
    """A number of the sentence is one the run recorded, at the precision shown (a percent
    as its fraction): the caption was formatted from it."""
    for match in NUMBER.finditer(sentence):
        shown, decimals = float(match.group(1)), len(match.group(1).partition(".")[2])
        scale = 100 if match.group(2) else 1
        if any(round(value * scale, decimals) == shown for value in recorded):
            return True
    return False


def test_a_caption_states_an_outcome_only_with_a_recorded_number():
    recorded = {7.0, 8.0, 0.6493}
    assert shows_a_recorded_number("The head forms in 7 of 8 seeds.", recorded)
    assert shows_a_recorded_number("right 65% of the time", recorded)
    assert not shows_a_recorded_number("The head forms in most seeds.", recorded)
    assert not shows_a_recorded_number("right 64% of the time", recorded)


def test_no_caption_or_alt_text_states_an_outcome_no_recorded_number_supports(results):
    from tools.running import snippet_runner

    typed, outcomes = [], 0
    for path in snippet_runner.discover():
        name = snippet_runner.name_of(path)
        run = results(name)
        recorded = {float(n["value"]) for n in run.data["numbers"].values()
                    if isinstance(n["value"], (int, float))}
        for key, by_lang in run.data["figures"].items():
            for lang, figure in by_lang.items():
                for field in ("caption", "alt"):
                    for paragraph in paragraphs(figure.get(field, "")):
                        for sentence in sentences(paragraph):
                            if outcome_kind(sentence):
                                outcomes += 1
                                if not shows_a_recorded_number(sentence, recorded):
                                    typed.append(f"{name} {key} ({lang} {field}): {sentence}")
    assert outcomes >= 3  # the lexicon sees the captions' outcomes at all
    assert typed == [], "captions stating an outcome no recorded number gives:\n" + "\n".join(typed)
