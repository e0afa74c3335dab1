def run():
    a = 1
    b = 2
    log()
    b = 2
    log()

    log()
    return a
