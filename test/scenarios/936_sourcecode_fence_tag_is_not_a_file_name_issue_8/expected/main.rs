fn main() {
    println!("v2");
}
