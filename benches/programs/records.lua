-- records (see records.dfs): n orders, a table of five fields each, in a table, then
-- scanned once.
local wordgen = dofile((arg[0]:match("^(.*/)") or "") .. "wordgen.lua")
local next_random = wordgen.next_random

local n = tonumber(arg and arg[1]) or 1000
local orders = {}
for i = 0, n - 1 do
  local customer = next_random() % 1000
  local quantity = 1 + next_random() % 10
  local cents = 100 + next_random() % 9900
  local express = next_random() % 7 == 0
  orders[#orders + 1] = { id = i, customer = customer, quantity = quantity, cents = cents, express = express }
end
local revenue, express = 0, 0
local largest, largest_id = 0, -1
local per_customer = {}
for c = 0, 999 do
  per_customer[c] = 0
end
for _, order in ipairs(orders) do
  local total = order.quantity * order.cents
  revenue = revenue + total
  if order.express then
    express = express + 1
  end
  if total > largest then
    largest, largest_id = total, order.id
  end
  per_customer[order.customer] = per_customer[order.customer] + total
end
local best = 0
for c = 0, 999 do
  if per_customer[c] > per_customer[best] then
    best = c
  end
end
print(string.format("%d orders, revenue %d, %d express", n, revenue, express))
print(string.format("largest order: %d (%d)", largest_id, largest))
print(string.format("best customer: %d (%d)", best, per_customer[best]))
