def g():
    value = fetch()
    return value


def h():
    value = fetch()
    cache.store(value)
    return value
