class Fetch:
    def run(self):
        retries = 3
        return retries


class Store:
    def run(self):
        retries = 3
        return retries
