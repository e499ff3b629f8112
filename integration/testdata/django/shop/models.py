from django.contrib.postgres.fields import HStoreField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q
from django.db.models.functions import Upper


class Customer(models.Model):
    name = models.CharField(max_length=100)
    email = models.EmailField(unique=True)
    joined = models.DateTimeField()

    class Meta:
        indexes = [GinIndex(fields=["name"], name="customer_name_trgm", opclasses=["gin_trgm_ops"])]


class Tag(models.Model):
    name = models.CharField(max_length=30, unique=True)


class Product(models.Model):
    name = models.CharField(max_length=100)
    edition = models.IntegerField(default=1)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    stock = models.IntegerField(default=0)
    attributes = models.JSONField(default=dict)
    specs = HStoreField(default=dict)
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


class Voucher(models.Model):
    """A soft-deleted code: only live vouchers' codes are unique (a partial
    unique index), and codes are looked up case-blind (an expression index)."""

    code = models.CharField(max_length=30)
    retired = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["code"], condition=Q(retired=None), name="voucher_code_live")]
        indexes = [
            models.Index(Upper("code"), name="voucher_code_upper"),
            models.Index(fields=["retired"], condition=Q(retired__isnull=False), name="voucher_retired"),
        ]
