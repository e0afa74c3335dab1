def greet():
    return "grüß dich"
