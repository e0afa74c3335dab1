def area(w, h):
    """Area of a rectangle, in square units."""
    return w * h


def perimeter(w, h):
    return (w + h) * 2
