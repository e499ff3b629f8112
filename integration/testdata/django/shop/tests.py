"""The shop's tests, as an application would write them: Django's runner
runs them against the test database it creates, on PostgreSQL or fickle."""
import datetime
import threading
from decimal import Decimal

from django.contrib.postgres.search import TrigramDistance, TrigramSimilarity
from django.db import DatabaseError, IntegrityError, connection, connections, transaction
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncDay
from django.test import TestCase, TransactionTestCase
from django.utils import timezone

from .models import Customer, Order, OrderLine, Product, Tag, Voucher

PARIS = datetime.timezone(datetime.timedelta(hours=1))


def make_catalog():
    red = Product.objects.create(name="shirt", price=Decimal("19.90"), stock=10, attributes={"color": "red", "size": 3})
    blue = Product.objects.create(name="shirt", edition=2, price=Decimal("24.50"), stock=5, attributes={"color": "blue", "size": 5, "tags": ["x"]})
    mug = Product.objects.create(name="mug", price=Decimal("7.00"), stock=0, attributes={})
    return red, blue, mug


class ShopTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ann = Customer.objects.create(name="Ann", email="ann@example.com", joined=datetime.datetime(2024, 1, 31, 23, 30, tzinfo=datetime.timezone.utc))
        cls.bob = Customer.objects.create(name="Bob", email="bob@example.com", joined=datetime.datetime(2024, 2, 1, 12, 0, tzinfo=PARIS))
        cls.red, cls.blue, cls.mug = make_catalog()

    def test_migrations_data_is_there(self):
        self.assertEqual(sorted(Tag.objects.values_list("name", flat=True)), ["new", "sale"])

    def test_many_to_many_both_ways(self):
        new, sale = Tag.objects.get(name="new"), Tag.objects.get(name="sale")
        self.red.tags.add(new, sale)
        self.blue.tags.add(sale)
        self.assertEqual(sorted(t.name for t in self.red.tags.all()), ["new", "sale"])
        self.assertEqual(sorted(p.edition for p in sale.products.all()), [1, 2])
        self.red.tags.remove(new)
        self.assertEqual(new.products.count(), 0)
        with_tags = Product.objects.prefetch_related("tags").order_by("id")
        self.assertEqual([len(p.tags.all()) for p in with_tags], [1, 1, 0])

    def test_json_field_lookups(self):
        self.assertEqual(list(Product.objects.filter(attributes__color="red").values_list("edition", flat=True)), [1])
        self.assertEqual(Product.objects.filter(attributes__size__gte=4).get().pk, self.blue.pk)
        self.assertEqual(Product.objects.filter(attributes__has_key="tags").count(), 1)
        self.assertEqual(Product.objects.filter(attributes={}).get().name, "mug")
        blue = Product.objects.get(pk=self.blue.pk)
        self.assertEqual(blue.attributes, {"color": "blue", "size": 5, "tags": ["x"]})

    def test_hstore_field_lookups(self):
        Product.objects.filter(pk=self.red.pk).update(specs={"color": "red", "fabric": "cotton"})
        Product.objects.filter(pk=self.blue.pk).update(specs={"color": "blue", "lining": None})
        self.assertEqual(Product.objects.filter(specs__has_key="fabric").get().pk, self.red.pk)
        self.assertEqual(Product.objects.filter(specs__contains={"color": "blue"}).get().pk, self.blue.pk)
        self.assertEqual(Product.objects.filter(specs__contained_by={"color": "red", "fabric": "cotton", "x": "y"}).count(), 2)
        self.assertEqual(list(Product.objects.filter(specs__color="red").values_list("edition", flat=True)), [1])
        self.assertEqual(Product.objects.filter(specs__has_keys=["color", "lining"]).get().pk, self.blue.pk)
        self.assertEqual(Product.objects.filter(specs__has_any_keys=["lining", "fabric"]).count(), 2)
        self.assertEqual(Product.objects.filter(specs__keys__contains=["fabric"]).get().pk, self.red.pk)
        self.assertEqual(Product.objects.filter(specs={}).get().name, "mug")
        self.assertEqual(list(Product.objects.order_by("edition", "name").values_list("specs__color", flat=True)), [None, "red", "blue"])
        self.assertEqual(Product.objects.get(pk=self.blue.pk).specs, {"color": "blue", "lining": None})

    def test_trigram_and_unaccent_search(self):
        Customer.objects.create(name="Zoë Ångström", email="zoe@example.com", joined=timezone.now())
        self.assertEqual(list(Customer.objects.filter(name__trigram_similar="Anne").values_list("name", flat=True)), ["Ann"])
        self.assertEqual(list(Customer.objects.filter(name__unaccent__icontains="angstrom").values_list("email", flat=True)), ["zoe@example.com"])
        ranked = Customer.objects.annotate(sim=TrigramSimilarity("name", "Bobby")).filter(sim__gt=0.1).order_by("-sim")
        self.assertEqual([(c.name, round(c.sim, 3)) for c in ranked], [("Bob", 0.429)])
        nearest = Customer.objects.annotate(dist=TrigramDistance("name", "Zoe")).order_by("dist", "name")
        self.assertEqual(nearest.first().email, "zoe@example.com")
        self.assertEqual(Customer.objects.filter(name__unaccent__trigram_similar="Zoe Angstrom").count(), 1)

    def test_unique_together_violation_rolls_back_only_the_savepoint(self):
        with self.assertRaises(IntegrityError):
            with transaction.atomic():
                Product.objects.create(name="shirt", edition=2, price=1)
        Product.objects.create(name="shirt", edition=3, price=1)
        self.assertEqual(Product.objects.filter(name="shirt").count(), 3)

    def test_unique_field_violation(self):
        with self.assertRaises(IntegrityError):
            with transaction.atomic():
                Customer.objects.create(name="Ann 2", email="ann@example.com", joined=timezone.now())
        self.assertEqual(Customer.objects.count(), 2)

    def test_conditional_unique_constraint(self):
        Voucher.objects.create(code="SPRING", retired=timezone.now())
        Voucher.objects.create(code="SPRING", retired=timezone.now())
        live = Voucher.objects.create(code="SPRING")
        with self.assertRaises(IntegrityError):
            with transaction.atomic():
                Voucher.objects.create(code="SPRING")
        live.retired = timezone.now()
        live.save()
        Voucher.objects.create(code="SPRING")
        self.assertEqual(Voucher.objects.filter(code="SPRING", retired=None).count(), 1)
        self.assertEqual(Voucher.objects.filter(code__iexact="spring").count(), 4)

    def test_annotate_and_aggregate(self):
        o1 = Order.objects.create(customer=self.ann, placed=timezone.now())
        o2 = Order.objects.create(customer=self.ann, placed=timezone.now())
        OrderLine.objects.create(order=o1, product=self.red, quantity=2)
        OrderLine.objects.create(order=o1, product=self.mug, quantity=1)
        OrderLine.objects.create(order=o2, product=self.blue, quantity=4)
        rows = Customer.objects.annotate(orders_n=Count("orders", distinct=True), items=Sum("orders__lines__quantity")).order_by("name")
        self.assertEqual([(c.name, c.orders_n, c.items) for c in rows], [("Ann", 2, 7), ("Bob", 0, None)])
        total = OrderLine.objects.aggregate(total=Sum(F("quantity") * F("product__price")))["total"]
        self.assertEqual(total, Decimal("2") * Decimal("19.90") + Decimal("7.00") + 4 * Decimal("24.50"))
        busy = Customer.objects.annotate(n=Count("orders")).filter(n__gte=2).values_list("email", flat=True)
        self.assertEqual(list(busy), ["ann@example.com"])

    def test_full_text_search(self):
        """django.contrib.postgres.search: to_tsvector over a column,
        plainto_tsquery and websearch_to_tsquery, ts_rank."""
        from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector

        notes = ["Please gift wrap the running shoes", "Leave the shoes at the door; the runner picks them up",
                 "No special instructions"]
        orders = [Order.objects.create(customer=self.ann, placed=timezone.now(), note=n) for n in notes]
        vector = SearchVector("note", config="english")
        found = Order.objects.annotate(search=vector).filter(search=SearchQuery("runs shoe", config="english"))
        self.assertEqual(list(found.values_list("id", flat=True)), [orders[0].id])
        web = SearchQuery('"gift wrap" or door', search_type="websearch", config="english")
        found = Order.objects.annotate(search=vector).filter(search=web).order_by("id")
        self.assertEqual(list(found.values_list("id", flat=True)), [orders[0].id, orders[1].id])
        ranked = (Order.objects.annotate(rank=SearchRank(vector, SearchQuery("shoes door", search_type="websearch", config="english")))
                  .order_by("-rank", "id").values_list("id", "rank"))
        self.assertEqual([(i, round(r, 6)) for i, r in ranked],
                         [(orders[1].id, 0.097358), (orders[0].id, 0.0), (orders[2].id, 0.0)])

    def test_select_for_update_in_atomic(self):
        with transaction.atomic():
            p = Product.objects.select_for_update().get(pk=self.red.pk)
            p.stock = F("stock") - 3
            p.save(update_fields=["stock"])
        self.red.refresh_from_db()
        self.assertEqual(self.red.stock, 7)
        with transaction.atomic():
            locked = list(Product.objects.select_for_update(of=("self",)).filter(stock__gt=0).order_by("id"))
        self.assertEqual(len(locked), 2)

    def test_iterator_uses_a_server_side_cursor(self):
        Product.objects.bulk_create(Product(name="bulk", edition=i, price=i) for i in range(1, 58))
        seen = [p.edition for p in Product.objects.filter(name="bulk").order_by("edition").iterator(chunk_size=10)]
        self.assertEqual(seen, list(range(1, 58)))
        values = list(Product.objects.filter(name="bulk", edition__lte=3).values_list("price", flat=True).order_by("price").iterator(chunk_size=2))
        self.assertEqual(values, [Decimal("1.00"), Decimal("2.00"), Decimal("3.00")])

    def test_time_zones(self):
        placed = datetime.datetime(2024, 3, 30, 23, 30, tzinfo=datetime.timezone.utc)
        o = Order.objects.create(customer=self.bob, placed=placed)
        o.refresh_from_db()
        self.assertEqual(o.placed, placed)
        # 23:30 UTC is 00:30 on the 31st in Paris (CET, UTC+1).
        self.assertEqual(Order.objects.filter(placed__date=datetime.date(2024, 3, 31)).count(), 1)
        day = Order.objects.annotate(day=TruncDay("placed")).values_list("day", flat=True).get()
        self.assertEqual(day.isoformat(), "2024-03-31T00:00:00+01:00")
        self.assertEqual(Customer.objects.filter(joined__year=2024, joined__month=2).count(), 2)

    def test_cascade_and_protect(self):
        o = Order.objects.create(customer=self.bob, placed=timezone.now())
        OrderLine.objects.create(order=o, product=self.mug, quantity=3)
        from django.db.models import ProtectedError

        with self.assertRaises(ProtectedError):
            self.mug.delete()
        self.bob.delete()
        self.assertFalse(Order.objects.filter(pk=o.pk).exists())
        self.assertEqual(OrderLine.objects.count(), 0)

    def test_queries_with_joins_and_q(self):
        o = Order.objects.create(customer=self.ann, placed=timezone.now(), note="gift")
        OrderLine.objects.create(order=o, product=self.blue, quantity=1)
        lines = OrderLine.objects.select_related("order__customer", "product").filter(Q(product__attributes__color="blue") | Q(quantity__gt=5))
        self.assertEqual([(l.order.customer.name, l.product.edition) for l in lines], [("Ann", 2)])
        self.assertEqual(Product.objects.filter(name__icontains="SHI").exclude(stock=0).count(), 2)
        Product.objects.filter(stock=0).update(stock=F("stock") + 1, price=F("price") * 2)
        self.assertEqual(Product.objects.get(pk=self.mug.pk).price, Decimal("14.00"))


class TransactionalTests(TransactionTestCase):
    def setUp(self):
        self.ann = Customer.objects.create(name="Ann", email="ann@example.com", joined=timezone.now())
        self.red, self.blue, self.mug = make_catalog()

    def test_atomic_rolls_back_everything_on_error(self):
        with self.assertRaises(ZeroDivisionError):
            with transaction.atomic():
                Order.objects.create(customer=self.ann, placed=timezone.now())
                with transaction.atomic():
                    Product.objects.filter(pk=self.red.pk).update(stock=0)
                1 / 0
        self.assertEqual(Order.objects.count(), 0)
        self.assertEqual(Product.objects.get(pk=self.red.pk).stock, 10)

    def test_nested_atomic_keeps_the_outer_work(self):
        with transaction.atomic():
            Order.objects.create(customer=self.ann, placed=timezone.now())
            try:
                with transaction.atomic():
                    Order.objects.create(customer=self.ann, placed=timezone.now())
                    raise ValueError
            except ValueError:
                pass
        self.assertEqual(Order.objects.count(), 1)

    def test_deferred_foreign_key_is_checked_at_commit(self):
        with self.assertRaises(IntegrityError):
            with transaction.atomic():
                order = Order.objects.create(customer=self.ann, placed=timezone.now())
                OrderLine.objects.create(order=order, product_id=987654, quantity=1)
        self.assertEqual(Order.objects.count(), 0)
        with transaction.atomic():
            # Deferred: the line may come before its product.
            order = Order.objects.create(customer=self.ann, placed=timezone.now())
            OrderLine.objects.create(order=order, product_id=self.mug.pk + 1000, quantity=1)
            Product.objects.create(id=self.mug.pk + 1000, name="late", price=1)
        self.assertEqual(OrderLine.objects.count(), 1)

    def test_select_for_update_blocks_other_connections(self):
        outcome = {}

        def other():
            try:
                with transaction.atomic():
                    try:
                        with transaction.atomic():
                            Product.objects.select_for_update(nowait=True).get(pk=self.red.pk)
                        outcome["nowait"] = "locked it"
                    except DatabaseError:
                        outcome["nowait"] = "refused"
                    outcome["skip"] = sorted(p.pk for p in Product.objects.select_for_update(skip_locked=True).all())
            finally:
                connections.close_all()

        with transaction.atomic():
            Product.objects.select_for_update().get(pk=self.red.pk)
            t = threading.Thread(target=other)
            t.start()
            t.join()
        self.assertEqual(outcome, {"nowait": "refused", "skip": sorted([self.blue.pk, self.mug.pk])})

    def test_iterator_outside_a_transaction_holds_its_cursor(self):
        self.assertTrue(connection.get_autocommit())
        Product.objects.bulk_create(Product(name="held", edition=i, price=i) for i in range(1, 26))
        editions = [p.edition for p in Product.objects.filter(name="held").order_by("-edition").iterator(chunk_size=4)]
        self.assertEqual(editions, list(range(25, 0, -1)))
