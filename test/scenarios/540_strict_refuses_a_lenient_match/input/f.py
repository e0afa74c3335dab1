def f():
    return “q”
