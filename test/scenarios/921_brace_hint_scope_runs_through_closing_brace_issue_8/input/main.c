int g(int x)
{
    if (x) {
        return 1;
    } else {
        return 2;
    }
}

int h(void)
{
    return 0;
}
