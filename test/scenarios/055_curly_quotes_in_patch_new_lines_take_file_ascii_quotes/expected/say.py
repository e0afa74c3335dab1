msg = "hello, world"
label = 'tag2'
print(msg, label)
