// text (see text.dfs): n lines built by concatenation, joined, split back into lines
// and words, counted.
include!("wordgen.rs");

fn main() {
    let n = size(1000);
    let mut random = Random::new();
    let mut lines: Vec<String> = Vec::new();
    for _ in 0..n {
        let words = 1 + random.next() % 8;
        let mut line = spell(random.next() % 1000);
        for _ in 1..words {
            line.push(' ');
            line.push_str(&spell(random.next() % 1000));
        }
        lines.push(line);
    }
    let text = lines.join("\n");
    let (mut line_count, mut word_count, mut word_bytes) = (0, 0, 0);
    for line in text.split('\n') {
        line_count += 1;
        for word in line.split(' ') {
            word_count += 1;
            word_bytes += word.len();
        }
    }
    println!(
        "{line_count} lines, {word_count} words, {word_bytes} bytes of words, {} bytes",
        text.len()
    );
}
