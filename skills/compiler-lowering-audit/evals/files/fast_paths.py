"""Planted for the eval `fix-planted-fast-path`: operator fast paths that the lowering audit
rejects. Copied into compiler/passes/ by the eval; never imported from here."""

TEMPLATES = {
    "matmul": "acc += tl.dot(a, b)",
    "softmax": "y = tl.exp(x - tl.max(x, 0)) / tl.sum(tl.exp(x - tl.max(x, 0)), 0)",
}


def lower_matmul(kernel):
    return TEMPLATES["matmul"]


def pick_path(kernel):
    if kernel.name.startswith("softmax"):
        return TEMPLATES["softmax"]
    return None
