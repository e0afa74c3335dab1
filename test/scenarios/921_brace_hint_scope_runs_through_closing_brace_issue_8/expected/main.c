int g(int x)
{
    if (x) {
        return 1;
    } else {
        return 3;
    }
}

int k(void)
{
    return 4;
}

int h(void)
{
    return 0;
}
