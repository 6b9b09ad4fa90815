/**
 * The sample `inventory` database of Debezium's tutorial (same tables, keys, auto-increment starts and rows), so
 * the demo's events can be compared with the examples in Debezium's documentation.
 */
export const INVENTORY_SCHEMA: string[] = [
  `CREATE TABLE products (
     id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
     name VARCHAR(255) NOT NULL,
     description VARCHAR(512),
     weight FLOAT
   ) AUTO_INCREMENT = 101`,
  `CREATE TABLE products_on_hand (
     product_id INTEGER NOT NULL PRIMARY KEY,
     quantity INTEGER NOT NULL,
     FOREIGN KEY (product_id) REFERENCES products(id)
   )`,
  `CREATE TABLE customers (
     id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
     first_name VARCHAR(255) NOT NULL,
     last_name VARCHAR(255) NOT NULL,
     email VARCHAR(255) NOT NULL UNIQUE KEY
   ) AUTO_INCREMENT = 1001`,
  `CREATE TABLE addresses (
     id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
     customer_id INTEGER NOT NULL,
     street VARCHAR(255) NOT NULL,
     city VARCHAR(255) NOT NULL,
     state VARCHAR(255) NOT NULL,
     zip VARCHAR(255) NOT NULL,
     type ENUM('SHIPPING','BILLING','LIVING') NOT NULL,
     FOREIGN KEY address_customer (customer_id) REFERENCES customers(id)
   ) AUTO_INCREMENT = 10`,
  `CREATE TABLE orders (
     order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
     order_date DATE NOT NULL,
     purchaser INTEGER NOT NULL,
     quantity INTEGER NOT NULL,
     product_id INTEGER NOT NULL,
     FOREIGN KEY order_customer (purchaser) REFERENCES customers(id),
     FOREIGN KEY ordered_product (product_id) REFERENCES products(id)
   ) AUTO_INCREMENT = 10001`,
];

export const INVENTORY_DATA: string[] = [
  `INSERT INTO products VALUES
     (default,'scooter','Small 2-wheel scooter',3.14),
     (default,'car battery','12V car battery',8.1),
     (default,'12-pack drill bits','12-pack of drill bits with sizes ranging from #40 to #3',0.8),
     (default,'hammer','12oz carpenter''s hammer',0.75),
     (default,'hammer','14oz carpenter''s hammer',0.875),
     (default,'hammer','16oz carpenter''s hammer',1.0),
     (default,'rocks','box of assorted rocks',5.3),
     (default,'jacket','water resistent black wind breaker',0.1),
     (default,'spare tire','24 inch spare tire',22.2)`,
  `INSERT INTO products_on_hand VALUES (101,3),(102,8),(103,18),(104,4),(105,5),(106,0),(107,44),(108,2),(109,5)`,
  `INSERT INTO customers VALUES
     (default,'Sally','Thomas','sally.thomas@acme.com'),
     (default,'George','Bailey','gbailey@foobar.com'),
     (default,'Edward','Walker','ed@walker.com'),
     (default,'Anne','Kretchmar','annek@noanswer.org')`,
  `INSERT INTO addresses VALUES
     (default,1001,'3183 Moore Avenue','Euless','Texas','76036','SHIPPING'),
     (default,1001,'2389 Hidden Valley Road','Harrisburg','Pennsylvania','17116','BILLING'),
     (default,1002,'281 Riverside Drive','Augusta','Georgia','30901','BILLING'),
     (default,1003,'3787 Brownton Road','Columbus','Mississippi','39701','SHIPPING'),
     (default,1003,'2458 Lost Creek Road','Bethlehem','Pennsylvania','18018','SHIPPING'),
     (default,1003,'4800 Simpson Square','Hillsdale','Oklahoma','74740','BILLING'),
     (default,1004,'1289 University Hill Road','Canehill','Arkansas','72717','LIVING')`,
  `INSERT INTO orders VALUES
     (default,'2016-01-16',1001,1,102),
     (default,'2016-01-17',1002,2,105),
     (default,'2016-02-19',1002,2,106),
     (default,'2016-02-21',1003,1,107)`,
];

/** The live changes the demo makes once streaming, mirroring the tutorial's steps. */
export const INVENTORY_LIVE_CHANGES: Array<{ label: string; sql: string }> = [
  { label: 'insert a customer', sql: "INSERT INTO customers VALUES (default,'Sarah','Thompson','kitt@acme.com')" },
  { label: 'update a customer', sql: "UPDATE customers SET first_name='Anne Marie' WHERE id=1004" },
  { label: 'add a column', sql: 'ALTER TABLE customers ADD COLUMN phone VARCHAR(32) NULL' },
  {
    label: 'insert after the ALTER',
    sql: "INSERT INTO customers VALUES (default,'Ivan','Petrov','ivan@example.com','+1-555-0100')",
  },
  { label: 'delete an address', sql: 'DELETE FROM addresses WHERE id=16' },
  { label: 'update stock', sql: 'UPDATE products_on_hand SET quantity=quantity-1 WHERE product_id=107' },
];
