def outer():
    def inner():
        value = 1
        return value * 2
