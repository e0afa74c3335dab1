def g():
    value = fetch()
    return value


def h():
    return None
