"""Three views (2), C34's planted check (three_roles.views.tied_qk_planted): it trains the tested
run's models, and it counts only valid draws as detected; the verdict is the rule's
(docs/claims.yml)."""

import ast
from pathlib import Path

VIEWS = Path(__file__).resolve().parents[4] / "snippets" / "three_roles" / "views"
SHARED = ("previous_token", "partner", "visible_to_causal", "offsets", "StackedModels", "accuracy_of",
          "needs_asymmetry")


def _definitions(path: Path) -> dict[str, str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name: ast.dump(node) for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def _constants(path: Path) -> dict[str, str]:
    """Each top-level UPPER_CASE name -> the statement that assigns it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(name, ast.Name) and name.id.isupper():
                        found[name.id] = ast.dump(node)
    return found


def test_the_planted_draws_train_and_score_as_the_tested_run_does():
    tested, planted = _definitions(VIEWS / "tied_qk.py"), _definitions(VIEWS / "tied_qk_planted.py")
    assert {name: planted[name] for name in SHARED} == {name: tested[name] for name in SHARED}
    # batch_for_every_model and train: the same bodies (the tested run's give the stack's tasks as defaults)
    for name in ("batch_for_every_model", "train"):
        assert _body(VIEWS / "tied_qk.py", name) == _body(VIEWS / "tied_qk_planted.py", name)
    tested, planted = _constants(VIEWS / "tied_qk.py"), _constants(VIEWS / "tied_qk_planted.py")
    for name in ("GROUPS", "KINDS", "VOCAB", "LENGTH", "OFFSETS", "IGNORE", "TASKS", "STEPS", "BATCH", "MARGIN", "HARMLESS"):
        assert planted[name] == tested[name], name


def _body(path: Path, name: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name)
    return [ast.dump(statement) for statement in function.body]


def test_the_planted_check_counts_only_valid_draws_as_detected(results):
    r = results("three_roles.views.tied_qk_planted")
    draws, valid = r.number("planted_draws"), r.number("planted_valid_draws")
    detected = r.number("planted_detection_share") * draws
    assert draws == 32                                   # seeds 0–31, whatever n_seeds is
    assert abs(detected - round(detected)) < 1e-9 and 0 <= round(detected) <= valid <= draws
