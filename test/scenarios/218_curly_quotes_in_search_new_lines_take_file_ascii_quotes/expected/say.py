msg = "hello, world"
label = 'tag'
print(msg, label)
