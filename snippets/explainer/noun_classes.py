"""Two classes of concrete English nouns, and neutral sentence frames to put them in.

For asking whether a real model's queries and keys carry a feature such as
"edible" (source B §4: 吃 and 苹果): FOOD_NOUNS are things people eat,
OTHER_NOUNS are everyday objects nobody eats. Every word is a single WordPiece
token of MiniLM's uncased vocabulary (so one vector per word), and the frames
say nothing about eating, so whatever separates the classes comes from the word.
"""

FOOD_NOUNS = [
    "apple", "banana", "bread", "cheese", "rice", "carrot", "onion", "mango", "potato",
    "tomato", "lemon", "cherry", "grape", "peach", "pear", "plum", "cabbage", "garlic",
    "butter", "egg", "meat", "beef", "pork", "soup", "cake", "cookie", "pie", "pizza",
    "pasta", "sausage", "bacon", "ham", "honey", "jam", "salad", "sandwich", "burger",
    "cereal", "bean", "almond", "walnut", "coconut", "pumpkin", "olive", "strawberry",
    "mushroom", "toast", "steak", "chocolate", "candy",
]

OTHER_NOUNS = [
    "hammer", "chair", "spoon", "pencil", "book", "shoe", "sock", "hat", "coat", "key",
    "phone", "bottle", "cup", "bucket", "brick", "stone", "rope", "ladder", "nail", "screw",
    "wheel", "bicycle", "umbrella", "mirror", "pillow", "blanket", "carpet", "window", "bed",
    "desk", "clock", "wallet", "ring", "coin", "needle", "scissors", "broom", "shovel",
    "bell", "candle", "drum", "guitar", "kettle", "towel", "helmet", "glove", "basket",
    "button", "wire", "camera",
]

# "{}" is the noun. No frame mentions food, eating or any noun of either list.
FRAMES = [
    "I looked at the {} for a moment.",
    "She pointed to the {} and smiled.",
    "We talked about the {} yesterday.",
    "The {} was there when I came home.",
    "He found the {} in the corner.",
    "There is a picture of the {} here.",
]


def framed_sentences() -> list[tuple[str, str, int]]:
    """(sentence, noun, frame index) for every noun in every frame; food nouns first."""
    return [(frame.format(noun), noun, f)
            for noun in FOOD_NOUNS + OTHER_NOUNS for f, frame in enumerate(FRAMES)]
