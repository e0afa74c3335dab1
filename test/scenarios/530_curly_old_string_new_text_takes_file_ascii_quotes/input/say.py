msg = "hello"
label = 'tag'
print(msg, label)
