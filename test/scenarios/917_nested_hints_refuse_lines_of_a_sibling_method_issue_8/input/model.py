class Alpha:
    def run(self):
        return 1


class Beta:
    def run(self):
        self.log("run")
        return 2

    def stop(self):
        self.log("stop")
        return 3
