"""The frame language's toy (three_roles.ant_colony.frame_language, C26 and C31), kept here so the
snippet reads as its measurement and the tests can import it.

A language whose 24 verbs take four frames (no object, a place, one object, two objects), the
verb last and its theme to name; models with one attention head, a residual path and an MLP,
stacked on a leading model dimension M (``make_models``, ``forward``) and trained together
(``train``); a ridge probe that reads a label from per-verb vectors, each verb held out in turn
(``held_out_accuracy``); and the random-projection baseline (``projection_percentile``,
``top_components``). The page's cells import these names and print their code.
"""

import itertools

import torch
import torch.nn.functional as F

# The language: four frames, six verbs each; a sentence is subject, two nouns, verb -> theme.
animals = ["猫", "狗", "鸟", "马"]
places = ["厨房", "花园", "河边", "学校"]
people = ["妈妈", "老师", "朋友", "邻居"]
things = {"food": ["苹果", "面包", "鱼"], "drink": ["水", "牛奶", "茶"], "writing": ["书", "报纸", "信"]}
FRAMES = ["none", "place", "object", "two_objects"]
verbs_of = {                                # frame -> its verbs (transitive ones: kind -> two verbs)
    "none": ["睡", "笑", "哭", "跑", "跳", "叫"],
    "place": ["住", "躺", "坐", "站", "等", "停"],
    "object": {"food": ["吃", "尝"], "drink": ["喝", "泼"], "writing": ["读", "写"]},
    "two_objects": {"food": ["喂", "做"], "drink": ["倒", "端"], "writing": ["寄", "念"]},
}
TRANSITIVE = {"none": False, "place": False, "object": True, "two_objects": True}
all_things = [t for kind in things.values() for t in kind]
thing_kind = {t: kind for kind, words in things.items() for t in words}

frame_verbs, frame_of, takes_kind = [], {}, {}
for frame, entries in verbs_of.items():
    for kind, words in (entries.items() if isinstance(entries, dict) else [(None, entries)]):
        for v in words:
            frame_verbs.append(v)
            frame_of[v], takes_kind[v] = frame, kind
lexicon = animals + places + people + all_things + frame_verbs
word_id = {w: i for i, w in enumerate(lexicon)}
VERB_AT = 3                                 # a sentence: subject, two nouns, verb -> theme


def sentences_of(verb):
    """Every sentence of ``verb``: (subject, noun, noun, verb) and its theme."""
    frame, kind = frame_of[verb], takes_kind[verb]
    out = []
    for s in animals:
        if frame == "none":                   # two fillers from the other pools
            pairs = itertools.permutations(places + all_things + people, 2)
            out += [((s, a, b, verb), s) for a, b in pairs]
        elif frame == "place":                # the place and a filler that is no place
            out += [((s, *ab, verb), p) for p in places for f in all_things + people
                    for ab in ((p, f), (f, p))]
        elif frame == "object":               # the object and a filler: a place, a person, another kind
            fillers = places + people + [t for t in all_things if thing_kind[t] != kind]
            out += [((s, *ab, verb), o) for o in things[kind] for f in fillers
                    for ab in ((o, f), (f, o))]
        else:                                 # the person and the thing given
            out += [((s, *ab, verb), r) for r in people for o in things[kind]
                    for ab in ((r, o), (o, r))]
    return out


table = {v: sentences_of(v) for v in frame_verbs}
longest = max(len(rows) for rows in table.values())
# (verbs, longest, 5): each verb's sentences (tokens then theme), repeated to the same length
SENTENCES = torch.stack([torch.tensor([[word_id[w] for w in (*words, theme)]
                                       for words, theme in rows])[torch.arange(longest) % len(rows)]
                         for rows in table.values()])
COUNTS = torch.tensor([len(rows) for rows in table.values()])


def batch(generator, n):
    """``n`` sentences: a verb drawn evenly, then one of its sentences. Tokens (n, 4), theme (n,)."""
    verb = torch.randint(len(frame_verbs), (n,), generator=generator)
    row = (torch.rand(n, generator=generator) * COUNTS[verb]).long()
    rows = SENTENCES[verb, row]                                               # (n, 5)
    return rows[:, :4], rows[:, 4]


frame_label = torch.tensor([FRAMES.index(frame_of[v]) for v in frame_verbs])            # (24,)
transitive_label = torch.tensor([int(TRANSITIVE[frame_of[v]]) for v in frame_verbs])    # (24,)

# The model: one attention head, a residual path and an MLP.
WIDTH, D_HEAD, D_MLP = 128, 32, 256


def make_models(seeds):
    """Parameters of one model per seed, stacked: name -> (M, ...). Embeddings N(0, 1),
    matrices uniform in ±1/√(fan in), as the project's seeded transformer."""
    shapes = {"embed": (len(lexicon), WIDTH), "position": (4, WIDTH),
              "W_Q": (WIDTH, D_HEAD), "W_K": (WIDTH, D_HEAD), "W_V": (WIDTH, D_HEAD),
              "W_O": (D_HEAD, WIDTH), "W_in": (WIDTH, D_MLP), "b_in": (D_MLP,),
              "W_out": (D_MLP, WIDTH), "b_out": (WIDTH,), "W_U": (WIDTH, len(lexicon)),
              "b_U": (len(lexicon),)}
    fan_in = {"W_O": D_HEAD, "W_out": D_MLP, "b_out": D_MLP}
    params = {name: [] for name in shapes}
    for seed in seeds:
        generator = torch.Generator().manual_seed(seed)
        for name, shape in shapes.items():
            if name in ("embed", "position"):
                params[name].append(torch.randn(shape, generator=generator))
            else:
                bound = fan_in.get(name, WIDTH) ** -0.5
                params[name].append((torch.rand(shape, generator=generator) * 2 - 1) * bound)
    return {name: torch.stack(values).requires_grad_() for name, values in params.items()}


def verb_inputs(p):
    """Each verb's vector entering the layer (its embedding plus the verb position): (M, 24, C)."""
    return p["embed"][:, [word_id[v] for v in frame_verbs]] + p["position"][:, None, VERB_AT]


def forward(p, tokens, query=None):
    """Logits at the verb (M, B, V) and the verb's attention over the four words (M, B, 4).

    ``tokens`` (B, 4) shared by all models, or (M, B, 4). ``query`` (M, B, hs) replaces the
    verb's query (for the causal check)."""
    M = len(p["embed"])
    tokens = tokens.expand(M, -1, -1) if tokens.dim() == 2 else tokens
    x = p["embed"][torch.arange(M)[:, None, None], tokens] + p["position"][:, None]         # (M, B, 4, C)
    q = x[:, :, VERB_AT] @ p["W_Q"] if query is None else query                             # (M, B, hs)
    k, v = x @ p["W_K"][:, None], x @ p["W_V"][:, None]                                     # (M, B, 4, hs)
    weights = (torch.einsum("mbd,mbtd->mbt", q, k) / D_HEAD ** 0.5).softmax(-1)             # (M, B, 4)
    head = torch.einsum("mbt,mbtd->mbd", weights, v)                                        # (M, B, hs)
    h = x[:, :, VERB_AT] + head @ p["W_O"]                                                  # (M, B, C) residual
    h = h + torch.relu(h @ p["W_in"] + p["b_in"][:, None]) @ p["W_out"] + p["b_out"][:, None]  # MLP
    return h @ p["W_U"] + p["b_U"][:, None], weights                                        # (M, B, V), (M, B, 4)


# Training.
def train(p, steps, batch_size=64, lr=3e-3):
    """Adam on every model at once (each its own batches of ``batch_size``); returns the losses (steps, M)."""
    M = len(p["embed"])
    optimizer = torch.optim.Adam(p.values(), lr=lr, foreach=True)
    generator = torch.Generator().manual_seed(0)
    losses = []
    for _ in range(steps):
        tokens, theme = batch(generator, M * batch_size)
        logits, _ = forward(p, tokens.view(M, batch_size, 4))                           # (M, b, V)
        loss = F.cross_entropy(logits.flatten(0, 1), theme, reduction="none").view(M, -1).mean(1)
        optimizer.zero_grad()
        loss.sum().backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses)


# The probe, held out verb by verb.
def held_out_accuracy(X, labels, ridge=0.1):
    """Leave-one-verb-out ridge probe. ``X`` (..., n, d) per-verb vectors, ``labels`` (n,)
    ints; returns the share of held-out verbs named right, (...)."""
    X = F.normalize(X, dim=-1)
    Y = F.one_hot(labels).float()                                              # (n, classes)
    n = len(labels)
    hits = []
    for held in range(n):
        keep = [i for i in range(n) if i != held]
        Xt, Yt = X[..., keep, :], Y[keep]                                      # (..., n-1, d)
        x_mean, y_mean = Xt.mean(-2, keepdim=True), Yt.mean(0)
        Xc = Xt - x_mean
        gram = Xc @ Xc.transpose(-1, -2) + ridge * torch.eye(n - 1)            # (..., n-1, n-1)
        alpha = torch.linalg.solve(gram, (Yt - y_mean).expand(*gram.shape[:-1], -1))
        scores = ((X[..., held, :] - x_mean[..., 0, :])[..., None, :] @ Xc.transpose(-1, -2)
                  @ alpha)[..., 0, :] + y_mean                                 # (..., classes)
        hits.append(scores.argmax(-1) == labels[held])
    return torch.stack(hits, -1).float().mean(-1)


# The baseline: random projections of the verb's input, and its principal components.
N_PROJECTIONS = 256


def random_projections(n, generator):
    """``n`` Gaussian maps from the model width to the head size: (n, C, hs)."""
    return torch.randn(n, WIDTH, D_HEAD, generator=generator)


def projection_percentile(inputs, labels, projections, q=0.95):
    """Per model: the ``q`` quantile of the probe's accuracy over random projections of
    ``inputs`` (M, n, C); returns (M,) and all accuracies (M, P)."""
    projected = inputs[:, None] @ projections[None]                             # (M, P, n, hs)
    accuracy = held_out_accuracy(projected, labels)                             # (M, P)
    return accuracy.quantile(q, dim=-1), accuracy


def top_components(vectors, k):
    """The top-``k`` principal directions of ``vectors`` (M, N, C): (M, C, k)."""
    centred = vectors - vectors.mean(1, keepdim=True)
    _, _, Vh = torch.linalg.svd(centred, full_matrices=False)                  # (M, C', C)
    return Vh[:, :k].transpose(1, 2)


# Everything the snippet measures on a model: a fixed evaluation set and a fixed set of projections.
EVAL = batch(torch.Generator().manual_seed(1), 2048)                          # a fixed evaluation set
PROJECTIONS = random_projections(N_PROJECTIONS, torch.Generator().manual_seed(2))
transitive_verbs = transitive_label.bool()
kind_label = torch.tensor([list(things).index(takes_kind[v]) for v in frame_verbs if takes_kind[v]])  # (12,)


@torch.no_grad()
def measure(p):
    X = verb_inputs(p)                                                         # (M, 24, C)
    q, k, v = X @ p["W_Q"], X @ p["W_K"], X @ p["W_V"]                         # (M, 24, hs) each
    tokens, theme = EVAL
    logits, weights = forward(p, tokens)                                           # (M, B, V), (M, B, 4)
    theme_at = tokens == theme[:, None]                                        # (B, 4): where the theme is
    layer_inputs = (p["embed"][:, tokens] + p["position"][:, None]).flatten(1, 2)  # (M, 4B, C)
    pca = top_components(layer_inputs, D_HEAD)                                 # (M, C, hs)
    out = {"accuracy": (logits.argmax(-1) == theme).float().mean(-1),
           "loss": F.cross_entropy(logits.transpose(1, 2), theme.expand(len(X), -1),
                                   reduction="none").mean(-1),
           "attention_on_theme": (weights * theme_at).sum(-1).mean(-1)}
    for task, labels in (("frame", frame_label), ("transitive", transitive_label)):
        out[f"{task}_query"] = held_out_accuracy(q, labels)
        out[f"{task}_key"] = held_out_accuracy(k, labels)
        out[f"{task}_value"] = held_out_accuracy(v, labels)
        out[f"{task}_pca"] = held_out_accuracy(X @ pca, labels)
        out[f"{task}_input"] = held_out_accuracy(X, labels)
        out[f"{task}_p95"], out[f"{task}_projections"] = projection_percentile(X, labels, PROJECTIONS)
    out["kind_query"] = held_out_accuracy(q[:, transitive_verbs], kind_label)
    return out
