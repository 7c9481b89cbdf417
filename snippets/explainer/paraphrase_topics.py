"""Paraphrase items for scoring MiniLM as a sentence embedder (real_model/pruning).

An item is a quadruple: an anchor sentence, a paraphrase of it, a related sentence
(someone else doing something close to it: same setting, other meaning), and an
unrelated sentence (someone else doing something else). The anchors are every subject
with every event, 10 x 20 = 200 items; the related and unrelated sentences are other
anchors, so a set of items needs only its anchors and their paraphrases.

The subjects come in two groups of five, and an item borrows its related and unrelated
sentences from its own group: the first 100 items and the last 100 share no sentence,
so one half can rank the heads while the other judges the pruned model.
"""

# (subject, the same subject in other words)
SUBJECTS = [
    ("The doctor", "The physician"),
    ("My neighbour", "The man who lives next door"),
    ("The teacher", "Our instructor"),
    ("The old woman", "The elderly lady"),
    ("The little boy", "The young child"),
    ("Our manager", "The boss"),
    ("The pilot", "The captain of the plane"),
    ("The student", "The pupil"),
    ("The farmer", "The man who works the farm"),
    ("The lawyer", "The attorney"),
]

# (event, the same event in other words); events 2k and 2k + 1 are related: same
# setting, other meaning
EVENTS = [
    ("bought a new car.", "purchased a new vehicle."),
    ("sold an old bike.", "got rid of a used bicycle for cash."),
    ("missed the last bus.", "was too late for the final bus."),
    ("took the early train.", "caught the first train of the day."),
    ("is learning Spanish.", "is studying the Spanish language."),
    ("is learning the piano.", "is taking piano lessons."),
    ("lost the house keys.", "misplaced the keys to the house."),
    ("found a key under the mat.", "discovered a key beneath the doormat."),
    ("fell asleep during the film.", "dozed off while the movie played."),
    ("laughed loudly at the film.", "roared with laughter at the movie."),
    ("cooked dinner for the family.", "made the evening meal for everyone at home."),
    ("ate lunch alone at work.", "had a solitary lunch at the office."),
    ("broke a leg while skiing.", "fractured a leg on the ski slope."),
    ("won a skiing race.", "came first in a ski competition."),
    ("forgot to pay the electricity bill.", "did not remember to settle the power bill."),
    ("paid the water bill early.", "settled the water charges ahead of time."),
    ("planted tomatoes in the garden.", "put tomato plants into the garden soil."),
    ("painted the garden fence.", "gave the fence in the yard a new coat of paint."),
    ("booked a flight to Tokyo.", "reserved a plane ticket to Japan's capital."),
    ("cancelled a hotel in Paris.", "called off a hotel reservation in the French capital."),
]
GROUP = 5   # subjects per group


def anchor(s: int, e: int) -> str:
    return f"{SUBJECTS[s][0]} {EVENTS[e][0]}"


def paraphrase_items() -> list[tuple[str, str, str, str]]:
    """Every subject with every event: (anchor, paraphrase, related, unrelated)."""
    items = []
    for s, (_, subject_again) in enumerate(SUBJECTS):
        group = s - s % GROUP
        for e, (_, event_again) in enumerate(EVENTS):
            related = anchor(group + (s + 1) % GROUP, e ^ 1)            # the paired event
            unrelated = anchor(group + (s + 2) % GROUP, (e + 6) % len(EVENTS))
            items.append((anchor(s, e), f"{subject_again} {event_again}", related, unrelated))
    return items


ITEMS = paraphrase_items()
