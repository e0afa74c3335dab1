class Alpha:
    def run(self):
        return 1

class Beta:
    def setup(self):
        return 1

    def run(self):
        return 2
