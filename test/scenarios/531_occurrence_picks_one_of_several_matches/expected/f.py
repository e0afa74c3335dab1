x = 1
y = 2
x = 2
z = 3
x = 9
