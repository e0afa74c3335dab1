x = 10
y = 2
# footer
