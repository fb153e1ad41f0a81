"""Whether the guides answer a question: a small logistic model over features of the best evidence.

The features are measured by the extractive answerer (extractive.answerability_features); the
weights are fitted on labelled questions by benchmarks/fit_answerability.py and shipped in
answerability.json with the data they were fitted on and the cross-validated figures
(results/answerability.md), so a refusal can be inspected like a ranking.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FEATURES = (
    "unknown_anywhere",  # rarity-weighted share of the subject words no guide covers
    "unknown_here",  # ... that nothing said about the place asked about covers
    "literal_unknown_here",  # ... with no word of the same stem or root there (word vectors aside)
    "named_unknown_here",  # ... of the things the question names ("the entry fee", "a cinema")
    "coverage",  # rarity-weighted share of the subject words the best sentence covers
    "similarity",  # static-model cosine of question and best sentence, town names masked
    "teacher",  # teacher-model cosine of question and best sentence (0 without the teacher)
    "kind_missing",  # share of the asked-for kinds of value (a price, a time...) no quote gives
    "other_place",  # 1 when another town's sentence covers the subject better (a false premise)
    "yes_no_unknown",  # unknown_here, for yes/no questions ("Is there a cinema...?")
    "no_subject",  # 1 when the question has no content word left ("what about it?")
    "absent_thing",  # an "is there / can I hire" question with a thing it names, or a word unlike all, the place's guides never use
    "follow_up",  # 1 for a later part of a question, whose words lean on the part before ("and how long is the ride?")
    "topic",  # the topic model's log-odds that a question worded like this one is about what the guides cover (0 without the teacher)
)
MODEL_FILE = Path(__file__).with_name("answerability.json")
SIGNS = {  # the direction each feature may push, so a weight reads as it is named: more unknown words never argue for answering
    "unknown_anywhere": -1, "unknown_here": -1, "literal_unknown_here": -1, "named_unknown_here": -1, "coverage": 1,
    "similarity": 1, "teacher": 1, "kind_missing": -1, "other_place": -1, "yes_no_unknown": -1, "absent_thing": -1, "topic": 1,
}


@dataclass(frozen=True)
class Verdict:
    """One part of a question: the model's probability that the guides answer it, and why."""

    part: str
    probability: float
    answered: bool
    features: dict[str, float]
    reason: str | None = None  # for a refusal: what the guides did not cover (names no source)
    passed_over: str | None = None  # why the top row went unquoted, when its heading says the opposite of the question

    def to_json(self) -> dict:
        return {
            "part": self.part,
            "probability": round(self.probability, 4),
            "answered": self.answered,
            "features": {name: round(value, 4) for name, value in self.features.items()},
            "reason": self.reason,
            "passed_over": self.passed_over,
        }


@dataclass(frozen=True)
class AnswerabilityModel:
    weights: dict[str, float]
    bias: float
    threshold: float  # answer when the probability is at least this
    fitted_on: dict = field(default_factory=dict)  # which questions, and the cross-validated figures
    # the topic model: log-odds = topic_bias + topic_weights . the question's teacher vector, learnt from labelled answerable
    # and out-of-scope questions' wording alone ("which football club..." reads unlike what the guides cover, whatever is retrieved)
    topic_weights: tuple[float, ...] = ()
    topic_bias: float = 0.0

    def topic(self, vector: np.ndarray | None) -> float:
        """The topic feature of a question (or part) with this teacher vector; 0 without a vector or a topic model."""
        if vector is None or len(self.topic_weights) != len(vector):
            return 0.0
        return float(self.topic_bias + np.dot(self.topic_weights, vector))

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(self.weights.get(name, 0.0) * value for name, value in features.items())
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def contributions(self, features: dict[str, float]) -> dict[str, float]:
        """Each feature's share of the log-odds: what pushed the probability up or down."""
        return {name: self.weights.get(name, 0.0) * value for name, value in features.items()}

    def to_json(self) -> dict:
        return {"features": list(FEATURES), "weights": self.weights, "bias": self.bias, "threshold": self.threshold,
                "fitted_on": self.fitted_on,
                "topic": {"bias": self.topic_bias, "weights": [round(w, 6) for w in self.topic_weights]}}

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> AnswerabilityModel:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        topic = data.get("topic") or {}
        return cls(dict(data["weights"]), float(data["bias"]), float(data["threshold"]), data.get("fitted_on", {}),
                   tuple(float(w) for w in topic.get("weights", ())), float(topic.get("bias", 0.0)))


def fit(rows: list[dict[str, float]], labels: list[int], l2: float = 1.0, steps: int = 200) -> tuple[dict[str, float], float]:
    """Logistic regression by Newton's method with an L2 penalty (not on the bias): weights and bias. A feature whose
    weight comes out against its SIGNS direction (collinear with another) is left out and the rest refitted, until none is."""
    kept = list(FEATURES)
    while True:
        x = np.array([[row[name] for name in kept] for row in rows], dtype=np.float64)
        fitted, bias = fit_vectors(x, labels, l2, steps)
        weights = dict(zip(kept, fitted.tolist()))
        wrong = [name for name, w in weights.items() if SIGNS.get(name, 0) * w < 0]
        if not wrong:
            return {name: weights.get(name, 0.0) for name in FEATURES}, bias
        kept.remove(max(wrong, key=lambda name: abs(weights[name])))


def fit_vectors(x: np.ndarray, labels: list[int], l2: float = 1.0, steps: int = 200) -> tuple[np.ndarray, float]:
    """fit() over rows given as a matrix (the topic model's: one teacher vector per question)."""
    y = np.array(labels, dtype=np.float64)
    x1 = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x1.shape[1])
    penalty = np.full(x1.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x1 @ w, -40, 40)))
        gradient = x1.T @ (p - y) + penalty * w
        hessian = (x1.T * (p * (1 - p))) @ x1 + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


THRESHOLD_STEP = 0.005  # the cuts choose_threshold tries
THRESHOLD_WINDOW = 0.05  # the cost at a cut is averaged over the cuts this far either side (session 30: the cheapest single
# cut sat on the edge of a cliff, 0.636 where 0.64 cost 2 more and 0.66 cost 6 more, and moved 0.07 when one set was added)


def choose_threshold(probabilities: list[float], labels: list[int], answered_unanswerable_cost: float = 1.0) -> float:
    """The probability cut with the least cost on labelled parts, the cost averaged over nearby cuts so the cut sits
    inside a wide valley, not on the edge of a cliff (a refused answerable part costs 1, an answered unanswerable one
    answered_unanswerable_cost)."""
    p, y = np.array(probabilities), np.array(labels)
    cuts = np.round(np.arange(THRESHOLD_STEP, 1.0, THRESHOLD_STEP), 4)
    costs = np.array([np.sum(y[p < cut]) + answered_unanswerable_cost * np.sum(1 - y[p >= cut]) for cut in cuts])
    width = round(THRESHOLD_WINDOW / THRESHOLD_STEP)
    smoothed = np.array([costs[max(0, i - width): i + width + 1].mean() for i in range(len(cuts))])
    first = int(np.argmin(smoothed))
    last = first
    while last + 1 < len(cuts) and smoothed[last + 1] <= smoothed[first] + 1e-9:
        last += 1
    return float(cuts[(first + last) // 2])  # the middle of a flat bottom


_LOADED: dict[Path, AnswerabilityModel] = {}


def shipped_model(path: Path = MODEL_FILE) -> AnswerabilityModel:
    """The fitted model shipped with the package (read once)."""
    if path not in _LOADED:
        _LOADED[path] = AnswerabilityModel.load(path)
    return _LOADED[path]


def verdict_lines(verdicts: list[Verdict]) -> list[str]:
    """The answerability model's word on each part: its probability against the threshold, and the
    features that pushed it most, so a refusal can be read like a ranking."""
    model = shipped_model()
    lines = []
    for verdict in verdicts:
        if not verdict.features:
            continue
        pushes = sorted(model.contributions(verdict.features).items(), key=lambda item: -abs(item[1]))[:3]
        why = ", ".join(f"{name} {verdict.features[name]:.2f} ({push:+.2f})" for name, push in pushes)
        label = f"“{verdict.part}”: " if len(verdicts) > 1 else ""
        p, at = apart(verdict.probability, model.threshold)
        overruled = f"; refused all the same: {verdict.reason}" if not verdict.answered and verdict.probability >= model.threshold else ""
        lines.append(f"answerability {label}p={p} (answers at ≥ {at}); most weight: {why}{overruled}")
        if verdict.passed_over:
            lines.append(f"quoted {label}{verdict.passed_over}")
    return lines


def apart(probability: float, threshold: float) -> tuple[str, str]:
    """Both to two decimals, or to as many (up to four) as it takes to tell them apart: "p=0.46 (answers at ≥ 0.46)"
    on a refusal reads as a contradiction."""
    for digits in (2, 3, 4):
        shown = f"{probability:.{digits}f}", f"{threshold:.{digits}f}"
        if shown[0] != shown[1]:
            break
    return shown
