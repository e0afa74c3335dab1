def load_a(path):
    with open(path) as f:
        data = f.read()
    return data.strip()


def load_b(path):
    with open(path) as f:
        data = f.read()
    return data.strip()


def main():
    return load_a("x") + load_b("y")
