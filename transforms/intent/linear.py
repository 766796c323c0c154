"""Multinomial logistic regression in numpy: deterministic full-batch training, class-balanced, L2-regularised.

No sklearn pickle and no randomness: the same features give the same weights, so a model rebuilt from data/intent/
at run time is the model the bench measured.
"""

import numpy as np


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_softmax(
    x: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    l2: float = 1e-3,
    steps: int = 400,
    lr: float = 0.5,
    balanced: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """(W, b) minimising weighted cross-entropy + l2/2 |W|^2 by gradient descent with Nesterov momentum."""
    n, d = x.shape
    x = x.astype(np.float64)
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), y] = 1.0
    counts = onehot.sum(axis=0)
    if balanced:
        cw = np.where(counts > 0, n / (n_classes * np.maximum(counts, 1)), 0.0)
        sw = cw[y]
    else:
        sw = np.ones(n)
    sw = sw / sw.sum()
    w = np.zeros((d, n_classes))
    b = np.zeros(n_classes)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    mom = 0.9
    for _ in range(steps):
        lw, lb = w + mom * vw, b + mom * vb
        p = softmax(x @ lw + lb)
        g = (p - onehot) * sw[:, None]
        gw = x.T @ g + l2 * lw
        gb = g.sum(axis=0)
        vw = mom * vw - lr * gw
        vb = mom * vb - lr * gb
        w += vw
        b += vb
    return w.astype(np.float32), b.astype(np.float32)


def predict_proba(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return softmax(x.astype(np.float32) @ w + b)
