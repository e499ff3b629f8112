from django.db import models


class Customer(models.Model):
    name = models.CharField(max_length=100)
    email = models.EmailField(unique=True)
    joined = models.DateTimeField()


class Tag(models.Model):
    name = models.CharField(max_length=30, unique=True)


class Product(models.Model):
    name = models.CharField(max_length=100)
    edition = models.IntegerField(default=1)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    stock = models.IntegerField(default=0)
    attributes = models.JSONField(default=dict)
    tags = models.ManyToManyField(Tag, related_name="products")

    class Meta:
        unique_together = [("name", "edition")]


class Order(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="orders")
    placed = models.DateTimeField()
    note = models.TextField(blank=True, default="")


class OrderLine(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.PROTECT)
    quantity = models.PositiveIntegerField()

    class Meta:
        unique_together = [("order", "product")]
