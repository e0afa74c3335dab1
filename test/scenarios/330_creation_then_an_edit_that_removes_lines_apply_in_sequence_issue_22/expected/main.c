#include <stdio.h>

int func(int num);
int func2(int num);

int main() {
	int i;

	for (i = 0; i < 10; i++) {
		printf("%d", func(i));
		printf("%d", func3(i));
	}

	return 0;
}

int func(int num) {
	return num * num;
}

int func2(int num) {
	return num * num * num;
}

