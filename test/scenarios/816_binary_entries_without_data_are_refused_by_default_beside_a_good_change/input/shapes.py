def area(w, h):
    """Area of a rectangle."""
    return w * h


def perimeter(w, h):
    return 2 * (w + h)
