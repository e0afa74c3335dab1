msg = "hello"
label = 'tag2'
print(msg, label)
