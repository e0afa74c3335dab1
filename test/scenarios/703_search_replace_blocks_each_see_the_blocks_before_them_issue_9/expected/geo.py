def area(w, h):
    """Area of a w by h rectangle."""
    return w * h


def main():
    print(area(2, 3))

if __name__ == "__main__":
    main()