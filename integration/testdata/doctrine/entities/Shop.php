<?php
// The ORM half of shop.php's domain, mapped with PHP 8 attributes: customers with an embedded address, their
// orders (a version column for optimistic locking, a jsonb column), the orders' lines, tags shared by orders
// through a join table, and the orders' payments, a class-table (JOINED) inheritance.
namespace Shop;

use Doctrine\Common\Collections\ArrayCollection;
use Doctrine\Common\Collections\Collection;
use Doctrine\ORM\Mapping as ORM;

#[ORM\Embeddable]
class Address
{
    public function __construct(
        #[ORM\Column(length: 100)] public string $street = '',
        #[ORM\Column(length: 50)] public string $city = '',
    ) {
    }
}

#[ORM\Entity]
#[ORM\Table(name: 'shop_customer')]
class Customer
{
    #[ORM\Id, ORM\Column, ORM\GeneratedValue(strategy: 'SEQUENCE')]
    #[ORM\SequenceGenerator(sequenceName: 'shop_customer_seq', initialValue: 1, allocationSize: 1)]
    public ?int $id = null;

    #[ORM\Column(length: 100, unique: true)]
    public string $name;

    #[ORM\Column(options: ['default' => false])]
    public bool $vip = false;

    #[ORM\Embedded(class: Address::class)]
    public Address $address;

    /** @var Collection<int, PurchaseOrder> */
    #[ORM\OneToMany(mappedBy: 'customer', targetEntity: PurchaseOrder::class, cascade: ['persist', 'remove'])]
    #[ORM\OrderBy(['id' => 'ASC'])]
    public Collection $orders;

    public function __construct(string $name, Address $address)
    {
        $this->name = $name;
        $this->address = $address;
        $this->orders = new ArrayCollection();
    }
}

#[ORM\Entity]
#[ORM\Table(name: 'shop_order')]
#[ORM\Index(columns: ['status'], name: 'shop_order_status')]
class PurchaseOrder
{
    #[ORM\Id, ORM\Column, ORM\GeneratedValue(strategy: 'IDENTITY')]
    public ?int $id = null;

    #[ORM\ManyToOne(targetEntity: Customer::class, inversedBy: 'orders')]
    #[ORM\JoinColumn(nullable: false, onDelete: 'CASCADE')]
    public Customer $customer;

    #[ORM\Column(type: 'datetime_immutable')]
    public \DateTimeImmutable $placedAt;

    #[ORM\Column(length: 20)]
    public string $status = 'new';

    #[ORM\Column(type: 'json', nullable: true, options: ['jsonb' => true])]
    public ?array $meta = null;

    #[ORM\Version, ORM\Column(type: 'integer')]
    public int $version = 1;

    /** @var Collection<int, OrderLine> */
    #[ORM\OneToMany(mappedBy: 'order', targetEntity: OrderLine::class, cascade: ['persist', 'remove'], orphanRemoval: true)]
    #[ORM\OrderBy(['product' => 'ASC'])]
    public Collection $lines;

    /** @var Collection<int, Tag> */
    #[ORM\ManyToMany(targetEntity: Tag::class, inversedBy: 'orders')]
    #[ORM\JoinTable(name: 'shop_order_tag')]
    #[ORM\OrderBy(['name' => 'ASC'])]
    public Collection $tags;

    public function __construct(Customer $customer, string $placedAt)
    {
        $this->customer = $customer;
        $this->placedAt = new \DateTimeImmutable($placedAt);
        $this->lines = new ArrayCollection();
        $this->tags = new ArrayCollection();
        $customer->orders->add($this);
    }

    public function addLine(string $product, int $quantity, string $price): OrderLine
    {
        $line = new OrderLine($this, $product, $quantity, $price);
        $this->lines->add($line);
        return $line;
    }
}

#[ORM\Entity]
#[ORM\Table(name: 'shop_order_line')]
class OrderLine
{
    #[ORM\Id, ORM\Column, ORM\GeneratedValue]
    public ?int $id = null;

    public function __construct(
        #[ORM\ManyToOne(targetEntity: PurchaseOrder::class, inversedBy: 'lines')]
        #[ORM\JoinColumn(name: 'order_id', nullable: false)]
        public PurchaseOrder $order,
        #[ORM\Column(length: 50)] public string $product,
        #[ORM\Column(type: 'smallint')] public int $quantity,
        #[ORM\Column(type: 'decimal', precision: 10, scale: 2)] public string $price,
    ) {
    }
}

#[ORM\Entity]
#[ORM\Table(name: 'shop_tag')]
class Tag
{
    #[ORM\Id, ORM\Column, ORM\GeneratedValue]
    public ?int $id = null;

    /** @var Collection<int, PurchaseOrder> */
    #[ORM\ManyToMany(targetEntity: PurchaseOrder::class, mappedBy: 'tags')]
    public Collection $orders;

    public function __construct(#[ORM\Column(length: 30, unique: true)] public string $name)
    {
        $this->orders = new ArrayCollection();
    }
}

#[ORM\Entity]
#[ORM\Table(name: 'shop_payment')]
#[ORM\InheritanceType('JOINED')]
#[ORM\DiscriminatorColumn(name: 'method', type: 'string', length: 10)]
#[ORM\DiscriminatorMap(['card' => CardPayment::class, 'transfer' => TransferPayment::class])]
abstract class Payment
{
    #[ORM\Id, ORM\Column, ORM\GeneratedValue(strategy: 'IDENTITY')]
    public ?int $id = null;

    #[ORM\ManyToOne(targetEntity: PurchaseOrder::class)]
    #[ORM\JoinColumn(name: 'order_id', nullable: false, onDelete: 'CASCADE')]
    public PurchaseOrder $order;

    #[ORM\Column(type: 'decimal', precision: 10, scale: 2)]
    public string $amount;

    #[ORM\Column(type: 'boolean')]
    public bool $settled = false;
}

#[ORM\Entity]
#[ORM\Table(name: 'shop_card_payment')]
class CardPayment extends Payment
{
    #[ORM\Column(length: 4)]
    public string $last4 = '';
}

#[ORM\Entity]
#[ORM\Table(name: 'shop_transfer_payment')]
class TransferPayment extends Payment
{
    #[ORM\Column(length: 34)]
    public string $iban = '';

    #[ORM\Column(type: 'date_immutable', nullable: true)]
    public ?\DateTimeImmutable $valueDate = null;
}
