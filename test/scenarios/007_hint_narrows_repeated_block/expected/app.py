def first():
    x = load()
    return x

def second():
    x = load()
    return x + 1
