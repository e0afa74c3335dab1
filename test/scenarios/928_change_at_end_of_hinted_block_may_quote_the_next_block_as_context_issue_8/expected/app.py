def g():
    value = fetch()
    return value or default()


def h():
    return None
