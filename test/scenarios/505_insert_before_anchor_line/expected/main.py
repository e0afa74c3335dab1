import os

# entry point
def main():
    print(os.getcwd())
