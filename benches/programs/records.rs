// records (see records.dfs): n orders, a struct of five fields, pushed onto a Vec, then
// scanned once.
include!("wordgen.rs");

struct Order {
    id: i64,
    customer: i64,
    quantity: i64,
    cents: i64,
    express: bool,
}

fn main() {
    let n = size(1000);
    let mut random = Random::new();
    let mut orders: Vec<Order> = Vec::new();
    for i in 0..n {
        let customer = random.next() % 1000;
        let quantity = 1 + random.next() % 10;
        let cents = 100 + random.next() % 9900;
        let express = random.next() % 7 == 0;
        orders.push(Order {
            id: i,
            customer,
            quantity,
            cents,
            express,
        });
    }
    let (mut revenue, mut express) = (0i64, 0i64);
    let (mut largest, mut largest_id) = (0i64, -1i64);
    let mut per_customer = vec![0i64; 1000];
    for order in &orders {
        let total = order.quantity * order.cents;
        revenue += total;
        if order.express {
            express += 1;
        }
        if total > largest {
            largest = total;
            largest_id = order.id;
        }
        per_customer[order.customer as usize] += total;
    }
    let mut best = 0;
    for c in 0..per_customer.len() {
        if per_customer[c] > per_customer[best] {
            best = c;
        }
    }
    println!("{n} orders, revenue {revenue}, {express} express");
    println!("largest order: {largest_id} ({largest})");
    println!("best customer: {best} ({})", per_customer[best]);
}
