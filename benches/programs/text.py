"""text (see text.dfs): n lines built by concatenation, joined, split back into lines
and words, counted."""
import sys

from wordgen import next_random, spell


def main(n):
    lines = []
    for _ in range(n):
        words = 1 + next_random() % 8
        line = spell(next_random() % 1000)
        for _ in range(1, words):
            line = line + " " + spell(next_random() % 1000)
        lines.append(line)
    text = "\n".join(lines)
    line_count = word_count = word_bytes = 0
    for line in text.split("\n"):
        line_count += 1
        for word in line.split(" "):
            word_count += 1
            word_bytes += len(word)
    print(
        "%d lines, %d words, %d bytes of words, %d bytes"
        % (line_count, word_count, word_bytes, len(text))
    )


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
