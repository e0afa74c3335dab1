class Fetch:
    def run(self):
        retries = 3
        return retries


class Store:
    def run(self):
        return None


def defaults():
    retries = 3
    return retries
