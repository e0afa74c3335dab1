def area(w, h):
    return w * h

def main():
    print(area(2, 3))